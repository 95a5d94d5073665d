"""The analysis of a set of hands: every card judged, the players' and pairs' rates
beside the field's, and each pair's test for play that knows too much.

The document (``cayenne-analysis/1``, docs/analysis.md) depends on the hands and the
settings only: the draws are seeded per hand, so any number of processes gives it.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any

from audit.analysis.judge import DECLARER, DEFENCE, LEAD, Decision, HandPlay, Settings, decisions
from audit.analysis.knowledge import Choice, SeenChoice, fit, fit_seen, pair_test, seen_test
from audit.analysis.stats import holm, poisson_binomial_tail, wilson
from audit.rules.cards import Seat

__all__ = ["FORMAT", "Judged", "analyse", "gather", "judge_hand"]

FORMAT = "cayenne-analysis/1"
EVIDENCE_P = 0.5
"""A card is evidence when it was double-dummy best although the view made that this
likely or less (``p_view <= 0.5``)."""
EVIDENCE_SHOWN = 12
DEFAULT_SETTINGS = Settings()

Mapper = Callable[[Callable[[HandPlay], "Judged"], Sequence[HandPlay]], Iterable["Judged"]]


@dataclass(frozen=True, slots=True)
class Judged:
    hand: HandPlay
    cards: tuple[Decision, ...]


def judge_hand(hand: HandPlay, settings: Settings) -> Judged:
    return Judged(hand, tuple(decisions(hand, settings)))


def _rate(k: int, n: int) -> dict[str, Any]:
    lo, hi = wilson(k, n)
    return {
        "n": n,
        "k": k,
        "rate": round(k / n, 4) if n else None,
        "ci95": [round(lo, 4), round(hi, 4)],
    }


@dataclass(slots=True)
class _Card:
    judged: Judged
    d: Decision
    player: str

    @property
    def board(self) -> str:
        return self.judged.hand.board


def _errors(cards: Iterable[_Card]) -> dict[str, Any]:
    chosen = [c for c in cards if c.d.choice and c.d.role != LEAD]
    out = _rate(sum(c.d.cost > 0 for c in chosen), len(chosen))
    out["tricks_lost"] = sum(c.d.cost for c in chosen)
    return out


def _leads(cards: Iterable[_Card]) -> dict[str, Any] | None:
    leads = [c for c in cards if c.d.role == LEAD]
    if not leads:
        return None
    return _rate(sum(c.d.cost == 0 for c in leads), len(leads))


def _by(cards: list[_Card], key: Callable[[_Card], str]) -> dict[str, Any]:
    groups: dict[str, list[_Card]] = {}
    for c in cards:
        groups.setdefault(key(c), []).append(c)
    return {k: _errors(v) for k, v in sorted(groups.items())}


def _choices(cards: Iterable[_Card], rates: dict[str, float]) -> list[Choice]:
    return [
        (c.d.p_view or 0.0, c.d.cost == 0, bool(c.d.favourite), rates[c.player])
        for c in cards
        if c.d.hidden
    ]


def _favourite_rates(cards: Iterable[_Card]) -> dict[str, float]:
    """Each player's share of his open decisions where he played the draws' favourite
    (one half without any)."""
    seen: dict[str, list[int]] = {}
    for c in cards:
        n = seen.setdefault(c.player, [0, 0])
        if c.d.hidden:
            n[0] += 1
            n[1] += bool(c.d.favourite)
    return {p: (k / n if n else 0.5) for p, (n, k) in seen.items()}


def _pair_test(cards: list[_Card], field: list[_Card], rates: dict[str, float]) -> dict[str, Any]:
    """The test of :mod:`audit.analysis.knowledge` against the curve fitted to the field
    (every other pair of the event) and, beside it, the exact tail against the view
    alone (which the history's information makes conservative, docs/analysis.md)."""
    own = _choices(cards, rates)
    field_choices = _choices(field, rates)
    curve = fit(field_choices)
    z, p_value, expected = pair_test(own, curve)
    probs = [c[0] for c in own]
    found = sum(c[1] for c in own)
    doc: dict[str, Any] = {
        "hidden_decisions": len(own),
        "found": found,
        "expected": round(expected, 3),
        "z": round(z, 3),
        "p_value": p_value,
        "p_view_only": poisson_binomial_tail(probs, found),
        "field_curve": {
            "coef": [round(x, 4) for x in curve.coef],
            "decisions": len(field_choices),
        },
    }
    if any(c.d.seen for c in field):
        # three tests of the pair (the best card found, and what a player who saw his
        # left-hand or his right-hand opponent's hand would play): Bonferroni's smallest
        doc["p_found"] = p_value
        doc["seen"] = {}
        smallest = p_value
        for i, name in enumerate(("left", "right")):
            mine = _seen_choices(cards, rates, i)
            seen_curve = fit_seen(_seen_choices(field, rates, i))
            sz, sp, sexp = seen_test(mine, seen_curve)
            doc["seen"][name] = {
                "decisions": len(mine),
                "played": sum(c[0] for c in mine),
                # no curve below MIN_FIELD field decisions: nothing expected, no test
                "expected": None if seen_curve is None else round(sexp, 3),
                "z": None if seen_curve is None else round(sz, 3),
                "p_value": sp,
            }
            smallest = min(smallest, sp)
        doc["p_value"] = min(1.0, 3 * smallest)
    return doc


def _seen_choices(cards: Iterable[_Card], rates: dict[str, float], i: int) -> list[SeenChoice]:
    """The open decisions' facts for the ``i``-th opponent's hand seen (0 left, 1 right)."""
    out: list[SeenChoice] = []
    for c in cards:
        if c.d.hidden and len(c.d.seen) > i:
            hit, same, p, gap = c.d.seen[i]
            out.append((hit, same, p, gap, rates[c.player]))
    return out


def analyse(
    hands: Sequence[HandPlay],
    settings: Settings = DEFAULT_SETTINGS,
    *,
    alpha: float = 0.001,
    skipped: Sequence[str] = (),
    mapper: Mapper | None = None,
) -> dict[str, Any]:
    """Judge every hand (through ``mapper``, a ``map`` that may run in processes) and
    gather the document."""
    judge: Callable[[HandPlay], Judged] = _Judge(settings)
    results = list(mapper(judge, hands) if mapper is not None else map(judge, hands))
    return gather(results, settings, alpha=alpha, skipped=skipped)


class _Judge:
    """A picklable ``judge_hand`` with its settings bound."""

    def __init__(self, settings: Settings) -> None:
        self.settings = settings

    def __call__(self, hand: HandPlay) -> Judged:
        return judge_hand(hand, self.settings)


def _cards(results: Sequence[Judged]) -> Iterator[_Card]:
    for j in results:
        for d in j.cards:
            yield _Card(j, d, j.hand.players[d.seat])


def gather(
    results: Sequence[Judged],
    settings: Settings,
    *,
    alpha: float,
    skipped: Sequence[str] = (),
) -> dict[str, Any]:
    """The document of hands already judged."""
    cards = list(_cards(results))
    by_player: dict[str, list[_Card]] = {}
    by_board: dict[str, list[_Card]] = {}
    for c in cards:
        by_player.setdefault(c.player, []).append(c)
        by_board.setdefault(c.board, []).append(c)
    pairs: dict[frozenset[str], tuple[str, str]] = {}
    for j in results:
        for a, b in ((Seat.N, Seat.S), (Seat.E, Seat.W)):
            ids = (j.hand.players[a], j.hand.players[b])
            pairs.setdefault(frozenset(ids), ids)

    def field(mine: list[_Card], who: set[str]) -> list[_Card]:
        boards = {c.board for c in mine}
        return [c for b in boards for c in by_board[b] if c.player not in who]

    players = []
    for pid in sorted(by_player):
        mine = by_player[pid]
        others = field(mine, {pid})
        players.append(
            {
                "player": pid,
                "boards": len({c.board for c in mine}),
                "errors": _errors(mine),
                "by_role": _by(mine, lambda c: c.d.role),
                "by_contract": _by(mine, lambda c: c.judged.hand.contract.text),
                "opening_leads": _leads(mine),
                "field": {"errors": _errors(others), "opening_leads": _leads(others)},
            }
        )
    rates = _favourite_rates(cards)
    pair_docs = []
    for key, ids in pairs.items():
        mine = [c for pid in ids for c in by_player.get(pid, [])]
        others = field(mine, set(key))
        test = _pair_test(mine, [c for c in cards if c.player not in key], rates)
        pair_docs.append(
            {
                "players": list(ids),
                "boards": len({c.board for c in mine}),
                "errors": _errors(mine),
                "opening_leads": _leads(mine),
                "field": {
                    "errors": _errors(others),
                    "opening_leads": _leads(others),
                },
                **test,
                "evidence": _evidence(mine, by_board, set(key)),
            }
        )
    adjusted = holm([p["p_value"] for p in pair_docs])
    for p, q in zip(pair_docs, adjusted, strict=True):
        p["p_adjusted"] = q
        p["flagged"] = q <= alpha
    pair_docs.sort(key=lambda p: (p["p_value"], p["players"]))
    roles: dict[str, Any] = {}
    for role in (LEAD, DECLARER, DEFENCE):
        mine = [c for c in cards if c.d.role == role]
        roles[role] = _by(mine, lambda c: c.judged.hand.contract.text) if mine else {}
    return {
        "format": FORMAT,
        "settings": {
            "from_card": settings.from_card,
            "opening_leads": settings.leads,
            "samples": settings.samples,
            "seen_draws": settings.seen_draws,
            "seed": settings.seed,
            "alpha": alpha,
            "multiplicity": "holm",
        },
        "hands": len(results),
        "skipped": list(skipped),
        "cards_judged": len(cards),
        "by_role_and_contract": roles,
        "players": players,
        "pairs": pair_docs,
        "flagged": [p["players"] for p in pair_docs if p["flagged"]],
        "cards": [_card_doc(c) for c in cards],
    }


def _card_doc(c: _Card) -> dict[str, Any]:
    d = c.d
    return {
        "hand": c.judged.hand.source,
        "contract": c.judged.hand.contract.text,
        "card": d.index + 1,
        "seat": d.seat.name,
        "player": c.player,
        "role": d.role,
        "move": d.move,
        "cost": d.cost,
        "best": list(d.best),
        "p_view": None if d.p_view is None else round(d.p_view, 4),
    }


def _evidence(
    mine: list[_Card], by_board: dict[str, list[_Card]], who: set[str]
) -> list[dict[str, Any]]:
    """The pair's cards that were best although the view made that unlikely, each beside
    how often the field, on the same board in such spots, found the best card."""
    hits = [c for c in mine if c.d.hidden and c.d.cost == 0 and (c.d.p_view or 0) <= EVIDENCE_P]
    hits.sort(key=lambda c: (c.d.p_view or 0.0, c.judged.hand.source, c.d.index))
    out = []
    for c in hits[:EVIDENCE_SHOWN]:
        spots = [
            x
            for x in by_board[c.board]
            if x.player not in who and x.d.hidden and (x.d.p_view or 0) <= EVIDENCE_P
        ]
        doc = _card_doc(c)
        doc["field_in_such_spots"] = _rate(sum(x.d.cost == 0 for x in spots), len(spots))
        out.append(doc)
    return out
