"""The public detector: one calibrated p-value per deal, and evidence across deals.

:func:`stacking_test` compares a deal with the order the same pack was left in after
the last hand played with it, and :func:`combine_p_values` pools one dealer's deals.
With ``dealt_order`` the test counts rising sequences (:mod:`audit.stacking.order`);
with the hands alone it scores how neighbours of the old pack moved round the table
(:mod:`audit.stacking.hands`). Both p-values are read from tables made once from
simulation (:mod:`audit.stacking.calibrate`), or computed exactly.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from audit.errors import FairplayError
from audit.rules.cards import FULL_MASK, Card, Seat, Side
from audit.rules.deal import check_pattern, deal_positions, pattern_name
from audit.stacking.hands import (
    advance_score,
    advances,
    best_orientation,
    mirrored,
    mirrored_pairs,
    mixed,
    oriented_score,
    relative_seats,
    two_way_score,
)
from audit.stacking.order import (
    SOFT_MIN_SCALE,
    cyclic_descents,
    exact_p_value,
    min_cyclic_descents,
    most_likely_riffles,
    positions,
    soft_min_descents,
    two_way_soft_min,
)
from audit.stacking.reference import Reference, reference_from_collected, reference_from_gathered
from audit.stacking.tables import MIN_P, TEST_RIFFLES, load_tables, pattern_tables

__all__ = [
    "CLOSE_SPAN",
    "DIRECTION_BACKWARD",
    "DIRECTION_FORWARD",
    "EVIDENCE_P",
    "METHOD_HANDS",
    "METHOD_ORDER",
    "PILE_TOPS",
    "PILE_TOP_EITHER",
    "PILE_TOP_FIRST",
    "PILE_TOP_LAST",
    "THOROUGH_RIFFLES",
    "StackingArgumentError",
    "StackingResult",
    "combine_by_dealer",
    "combine_p_values",
    "previous_hand_with_pack",
    "stacking_test",
]

METHOD_ORDER = "rising-sequences"
METHOD_HANDS = "hands"
EVIDENCE_P = 0.05
"""Below this p-value the evidence also names the most likely number of riffles."""
CLOSE_SPAN = 8
"""With ``dealt_order``, a trick *stayed close* when its four cards left the pack
within this many consecutive places."""
DIRECTION_FORWARD = "last trick of each pile on top"
"""``evidence.direction`` when the deal is best read with each pile's last trick on top
(the physical reading of the record's "first stacked first")."""
DIRECTION_BACKWARD = "first trick of each pile on top"
"""``evidence.direction`` when it is best read the other way round."""
PILE_TOP_EITHER = "either"
PILE_TOP_LAST = "last"
PILE_TOP_FIRST = "first"
PILE_TOPS = (PILE_TOP_EITHER, PILE_TOP_LAST, PILE_TOP_FIRST)
THOROUGH_RIFFLES = 7
"""Bayer and Diaconis: seven riffles make a 52-card pack close to random."""


class StackingArgumentError(FairplayError, ValueError):
    """A caller passed an argument outside the detector's documented choices."""

    code = "STACKING_ARGUMENT"


@dataclass(frozen=True, slots=True)
class StackingResult:
    """The outcome of testing one deal.

    ``p_value`` is the probability, under a thorough shuffle, of a deal at least as
    structured as this one (uniform on honest deals; with ``collected`` and
    ``dealt_order`` the count of rising sequences is an integer, so there it is exact
    but discrete). ``statistic`` is the test statistic of ``method``: for
    ``rising-sequences`` the number of cyclic rising sequences, or with ``gathered``
    their soft minimum over trick orientations and both directions of the cycle
    (small means structured); for
    ``hands`` the advance score (large means structured). ``evidence`` is
    JSON-serialisable.
    """

    p_value: float
    statistic: float
    method: str
    evidence: dict[str, Any] = field(default_factory=dict)

    def as_dict(self) -> dict[str, Any]:
        """The report's ``hands[].stacking`` object."""
        return {
            "p_value": self.p_value,
            "statistic": self.statistic,
            "method": self.method,
            "evidence": self.evidence,
        }


def _hands_valid(deal: Mapping[Seat, Sequence[Card]]) -> bool:
    if len(deal) != 4 or any(s not in deal for s in Seat):
        return False
    mask = 0
    try:
        for cards in deal.values():
            if len(cards) != 13:
                return False
            for c in cards:
                mask |= 1 << c
    except (TypeError, ValueError):  # not an int, or a negative one
        return False
    return mask == FULL_MASK


def _order_matches(
    order: Sequence[Card], rel: Sequence[int], dealer: Seat, pattern: tuple[int, ...]
) -> bool:
    if len(order) != 52:
        return False
    seats = deal_positions(pattern, dealer)
    seen = 0
    for c, seat in zip(order, seats, strict=True):
        if not isinstance(c, int) or not 0 <= c < 52 or rel[c] != (seat - dealer - 1) & 3:
            return False
        seen |= 1 << c
    return seen == FULL_MASK


def _tricks_evidence(
    tricks: Sequence[Sequence[Card]], rel: Sequence[int]
) -> tuple[list[int], list[int]]:
    together: list[int] = []
    spread: list[int] = []
    if len(tricks) == 13 and all(len(t) == 4 for t in tricks):
        for n, t in enumerate(tricks, start=1):
            hands = {rel[c] for c in t}
            if len(hands) == 1:
                together.append(n)
            elif len(hands) == 4:
                spread.append(n)
    return together, spread


def _reference(
    tricks: Sequence[Sequence[Card]],
    gathered: Mapping[Side, Sequence[int]] | Mapping[str, Sequence[int]] | None,
    collected: Sequence[Card] | None,
) -> Reference | None:
    if collected is not None:
        ref = reference_from_collected(collected, tricks)
        if ref is not None:
            return ref
    if gathered is not None:
        return reference_from_gathered(tricks, gathered)
    return None


def stacking_test(
    prev_tricks: Sequence[Sequence[Card]],
    prev_gathered: Mapping[Side, Sequence[int]] | Mapping[str, Sequence[int]] | None,
    prev_collected: Sequence[Card] | None,
    deal: Mapping[Seat, Sequence[Card]] | Mapping[str, Sequence[Card]],
    dealer: Seat | str,
    pattern: Sequence[int],
    dealt_order: Sequence[Card] | None = None,
    *,
    pile_top: str = PILE_TOP_EITHER,
) -> StackingResult | None:
    """Test whether ``deal`` keeps the structure of the pack's previous hand.

    ``prev_tricks``: the 13 tricks of the last hand played with this pack, four cards
    each in play order; ``prev_gathered`` (1-based trick numbers per side, first
    stacked first) or ``prev_collected`` (the pack as put together, top first) says how
    they were stacked; ``collected`` wins when both are valid. ``deal``, ``dealer`` and
    ``pattern`` (the ruleset's ``deal_pattern``) describe the new deal, ``dealt_order``
    its 52 cards in the order dealt when known. Seats and sides may be the enums or
    the record's text (``"N"``, ``"NS"``).

    ``pile_top`` says which trick of each ``gathered`` pile lay on top of the pack:
    ``"either"`` (the default: producers differ, so both readings count), ``"last"``
    (the physical reading of "first stacked first") or ``"first"``. A caller that
    knows its producer's convention gains power (docs/detection.md); a wrong one
    loses most of it. Raises :class:`StackingArgumentError` for another value.

    Returns ``None`` when the deal cannot be tested: no valid gathering or collected
    pack, a deal that is not four hands of 13 from one pack, or (hands only) a packet
    pattern without shipped tables. A ``dealt_order`` that does not give ``deal`` by
    ``pattern`` (a misdeal, reported by its own check) is set aside and the hands are
    tested. Raises :class:`audit.errors.RulesetError` for a pattern that does not deal
    thirteen cards.
    """
    pat = check_pattern(pattern)
    if pile_top not in PILE_TOPS:
        raise StackingArgumentError(
            f"pile_top {pile_top!r}: expected one of {', '.join(PILE_TOPS)}"
        )
    dealer = Seat.parse(dealer) if isinstance(dealer, str) else Seat(dealer)
    try:
        hands: dict[Seat, Sequence[Card]] = {
            Seat.parse(k) if isinstance(k, str) else Seat(k): v for k, v in deal.items()
        }
    except (FairplayError, ValueError):
        return None
    if not _hands_valid(hands):
        return None
    ref = _reference(prev_tricks, prev_gathered, prev_collected)
    if ref is None:
        return None
    rel = relative_seats(hands, dealer)
    together, spread = _tricks_evidence(prev_tricks, rel)
    evidence: dict[str, Any] = {
        "reference": ref.source,
        "pattern": pattern_name(pat),
        "tricks_together": together,
        "tricks_spread": spread,
    }
    if dealt_order is not None:
        if _order_matches(dealt_order, rel, dealer, pat):
            return _order_test(ref, dealt_order, prev_tricks, evidence, pile_top)
        evidence["note"] = "dealt_order set aside: it does not give this deal"
    return _hands_test(ref, rel, pat, evidence, pile_top)


def _order_test(
    ref: Reference,
    order: Sequence[Card],
    tricks: Sequence[Sequence[Card]],
    evidence: dict[str, Any],
    pile_top: str,
) -> StackingResult:
    pos = positions(order)
    if ref.oriented:
        w = cyclic_descents([c for b in ref.blocks for c in b], pos)
        p = max(exact_p_value(w), MIN_P)
        statistic = float(w)
    else:
        if pile_top == PILE_TOP_EITHER:
            statistic, backward = two_way_soft_min(ref.blocks, pos)
        else:
            backward = pile_top == PILE_TOP_FIRST
            statistic = soft_min_descents(ref.blocks, [51 - x for x in pos] if backward else pos)
        two_way = pile_top == PILE_TOP_EITHER
        p = load_tables().order_p_value(statistic, SOFT_MIN_SCALE, two_way=two_way)
        w, _ = min_cyclic_descents(ref.blocks, [51 - x for x in pos] if backward else pos)
        evidence["direction"] = DIRECTION_BACKWARD if backward else DIRECTION_FORWARD
    riffles, llr = most_likely_riffles(w)
    close: list[int] = []
    if len(tricks) == 13:
        for n, t in enumerate(tricks, start=1):
            ps = [pos[c] for c in t]
            if max(ps) - min(ps) < CLOSE_SPAN:
                close.append(n)
    evidence.update(
        {
            "method": METHOD_ORDER,
            "rising_sequences": w,
            "expected_rising_sequences": 26.0,
            "riffles": riffles if riffles < THOROUGH_RIFFLES else None,
            "log_likelihood_ratio": round(llr, 3),
            "tricks_close": close,
        }
    )
    return StackingResult(p, statistic, METHOD_ORDER, evidence)


def _hands_test(
    ref: Reference,
    rel: Sequence[int],
    pattern: tuple[int, ...],
    evidence: dict[str, Any],
    pile_top: str,
) -> StackingResult | None:
    tables = pattern_tables(pattern)
    if tables is None:
        return None
    cycle = [c for b in ref.blocks for c in b] if ref.oriented else []
    backward = False
    tw, pw, plain = tables.test_weights, tables.pair_weights, tables.plain_weights
    offset = tables.chain_offset
    if ref.oriented:
        score = mixed(
            oriented_score(cycle, rel, tw, pw) - offset, oriented_score(cycle, rel, plain)
        )
        p = tables.null_oriented.p_value(score)
    elif pile_top == PILE_TOP_EITHER:
        chain, chain_back = two_way_score(ref.blocks, rel, tw, pw)
        chain -= offset
        single, single_back = two_way_score(ref.blocks, rel, plain)
        score = mixed(chain, single)
        backward = chain_back if chain >= single else single_back
        p = tables.null.p_value(score)
        evidence["direction"] = DIRECTION_BACKWARD if backward else DIRECTION_FORWARD
    else:
        backward = pile_top == PILE_TOP_FIRST
        if backward:
            chain = advance_score(ref.blocks, rel, mirrored(tw), mirrored_pairs(pw)) - offset
            single = advance_score(ref.blocks, rel, mirrored(plain))
        else:
            chain = advance_score(ref.blocks, rel, tw, pw) - offset
            single = advance_score(ref.blocks, rel, plain)
        score = mixed(chain, single)
        p = tables.null_one_way.p_value(score)
        evidence["direction"] = DIRECTION_BACKWARD if backward else DIRECTION_FORWARD
    evidence.update({"method": METHOD_HANDS, "score": round(score, 4), "riffles": None})
    if p < EVIDENCE_P:
        if ref.oriented:
            evidence["advances"] = advances(ref.blocks, rel, [False] * len(ref.blocks))
        else:
            orient = tables.weights_by_riffles[TEST_RIFFLES]
            weights = mirrored(orient) if backward else orient
            counts = advances(ref.blocks, rel, best_orientation(ref.blocks, rel, weights))
            evidence["advances"] = list(mirrored(counts)) if backward else counts
        best = 0.0
        for k, weights in enumerate(tables.weights_by_riffles):
            if ref.oriented:
                s = oriented_score(cycle, rel, weights)
            else:
                s = advance_score(ref.blocks, rel, mirrored(weights) if backward else weights)
            if s > best:
                best, evidence["riffles"] = s, k
    return StackingResult(p, score, METHOD_HANDS, evidence)


def combine_p_values(ps: Sequence[float]) -> float:
    """Fisher's combination of independent p-values (one dealer's deals).

    ``-2 sum log p`` is chi-squared with ``2 n`` degrees of freedom under the null;
    its tail has the closed form ``exp(-x/2) sum_{i<n} (x/2)**i / i!``. An empty list
    gives 1. Conservative when the p-values are (the rising-sequence count is discrete).
    """
    values = [min(max(float(p), MIN_P), 1.0) for p in ps]
    if not values:
        return 1.0
    half = -sum(math.log(p) for p in values)  # the statistic x, halved
    if half <= 0.0:
        return 1.0
    log_terms = [i * math.log(half) - math.lgamma(i + 1) for i in range(len(values))]
    top = max(log_terms)
    log_sum = top + math.log(sum(math.exp(t - top) for t in log_terms))
    return min(1.0, math.exp(-half + log_sum))


def previous_hand_with_pack(packs: Sequence[int | None], index: int) -> int | None:
    """The index of the hand that last used the pack of hand ``index``, or ``None``.

    ``packs`` holds each hand's ``pack`` field (``None`` when absent). With a ``pack``
    the answer is the last earlier hand with the same pack; without one, the packs
    are taken to alternate and the answer is ``index - 2``.
    """
    if not 0 <= index < len(packs):
        return None
    pack = packs[index]
    if pack is None:
        return index - 2 if index >= 2 else None
    for j in range(index - 1, -1, -1):
        if packs[j] == pack:
            return j
    return None


def combine_by_dealer(
    results: Sequence[tuple[Seat, StackingResult | None]],
) -> dict[Seat, dict[str, Any]]:
    """Pool each dealer's tested deals: ``{seat: {"p_value", "deals", "hands"}}``.

    ``results`` lists, hand by hand, the dealer and the hand's result (``None`` when
    untested); ``hands`` are the 1-based numbers of the hands pooled.
    """
    pooled: dict[Seat, dict[str, Any]] = {}
    for number, (dealer, result) in enumerate(results, start=1):
        if result is None:
            continue
        entry = pooled.setdefault(Seat(dealer), {"ps": [], "hands": []})
        entry["ps"].append(result.p_value)
        entry["hands"].append(number)
    return {
        seat: {"p_value": combine_p_values(e["ps"]), "deals": len(e["ps"]), "hands": e["hands"]}
        for seat, e in pooled.items()
    }
