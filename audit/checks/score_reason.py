"""Why a claim differs from the rules, in words a player accepts.

The claim is scored again as a player making one of the usual slips would score it
(the same :func:`audit.rules.scoring.score_hand`, with the facts, the ruleset or a
:class:`audit.rules.scoring.Slip` changed); the first slip that gives the claim exactly is
the reason. SCORE_MISMATCH (:mod:`audit.checks.score`) puts it in its message and
evidence. No slip matching is not an error: the message then gives the difference only.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass, replace

from audit.rules.explain import SIDE_TEXT
from audit.rules.model import Score
from audit.rules.ruleset import PENALTY_OPTIONS, Ruleset
from audit.rules.scoring import HandFacts, HandScore, Slip, score_hand

__all__ = ["UNITS", "Reason", "agrees", "amount_text", "explain_mismatch"]

UNITS = (1, 2, 3, 4, 8)


@dataclass(frozen=True, slots=True)
class Reason:
    slip: str
    """A stable name for the slip (docs/findings.md)."""
    text: str


def agrees(expected: Score, claimed: Score) -> bool:
    """Whether ``claimed`` is ``expected`` (games and bonuses only where claimed)."""
    if expected.points != claimed.points:
        return False
    if claimed.has_games and expected.games != claimed.games:
        return False
    return not claimed.has_bonuses or Counter(expected.bonuses) == Counter(claimed.bonuses)


def amount_text(expected: Score, claimed: Score) -> str | None:
    """``the claim is 4 more than the rules give N-S``: each side's points won in the hand
    (ten for each game, plus the marker after it) claimed against the rules, or ``None``
    when they are the same."""
    games = claimed.games if claimed.has_games else expected.games
    parts = []
    for side in (0, 1):
        got = 10 * sum(1 for g in games if g.side == side) + claimed.points[side]
        want = 10 * sum(1 for g in expected.games if g.side == side) + expected.points[side]
        if got != want:
            more = "more" if got > want else "less"
            parts.append(f"{abs(got - want)} {more} for {SIDE_TEXT[side]}")
    if not parts:
        return None
    return "the claim is " + " and ".join(parts) + " than the rules give"


def explain_mismatch(
    points: tuple[int, int],
    games: tuple[int, int],
    facts: HandFacts,
    ruleset: Ruleset,
    claimed: Score,
) -> Reason | None:
    """The first usual slip that scores the hand exactly as claimed, or ``None``."""
    for slip, text, score in _variants(points, games, facts, ruleset):
        if agrees(score().score, claimed):
            return Reason(slip, text)
    return None


def _who(facts: HandFacts, i: int) -> tuple[str, str]:
    """``("E's revoke at trick 5", "default")``: the ``i``-th revoke, and whether its
    penalty was recorded or is the ruleset's default."""
    side = facts.revokes[i][0]
    at = facts.revokes_at[i] if i < len(facts.revokes_at) else None
    if at is None:
        return f"{SIDE_TEXT[side]}'s revoke", "recorded"
    return f"{at.seat.name}'s revoke at trick {at.trick}", "recorded" if at.recorded else "default"


def _variants(
    points: tuple[int, int], games: tuple[int, int], facts: HandFacts, ruleset: Ruleset
) -> Iterator[tuple[str, str, Callable[[], HandScore]]]:
    def scored(
        f: HandFacts = facts, r: Ruleset = ruleset, slips: frozenset[Slip] = frozenset()
    ) -> Callable[[], HandScore]:
        return lambda: score_hand(points, games, f, r, slips)

    whose = [_who(facts, i) for i in range(len(facts.revokes))]
    if facts.revokes:
        yield (
            "penalty_not_applied",
            "; ".join(
                f"the {kind} revoke penalty ({option}) was not applied to {who}"
                for (who, kind), (_, option) in zip(whose, facts.revokes, strict=True)
            ),
            scored(slips=frozenset({Slip.NO_PENALTY})),
        )
    for i, (side, option) in enumerate(facts.revokes):
        who, kind = whose[i]
        rest = facts.revokes[:i] + facts.revokes[i + 1 :]
        rest_at = facts.revokes_at[:i] + facts.revokes_at[i + 1 :]
        yield (
            "revoke_ignored",
            f"{who} was not scored at all: no penalty ({kind}: {option}), no cap at 9, "
            "no slam denied",
            scored(replace(facts, revokes=rest, revokes_at=rest_at)),
        )
        for other in PENALTY_OPTIONS:
            if other == option:
                continue
            swapped = facts.revokes[:i] + ((side, other),) + facts.revokes[i + 1 :]
            why = (
                f"no penalty is recorded, so the default ({option}) applies"
                if kind == "default"
                else f"the record names {option}"
            )
            yield (
                "other_penalty",
                f"{who} was penalised by {other}, but {why}",
                scored(replace(facts, revokes=swapped)),
            )
    if facts.revokes:
        yield (
            "revoke_not_capped",
            "a side that revoked was let win a game in the hand: its points stop at 9",
            scored(slips=frozenset({Slip.REVOKE_NOT_CAPPED})),
        )
        yield (
            "slam_despite_revoke",
            "a slam was given to a side that revoked",
            scored(slips=frozenset({Slip.SLAM_DESPITE_REVOKE})),
        )
    if facts.contract.has_trump:
        yield (
            "honours_when_out",
            "honours were scored by a side whose adversaries went out by cards",
            scored(slips=frozenset({Slip.HONOURS_WHEN_OUT})),
        )
        yield (
            "honours_not_capped",
            "honours were let win a game without the odd trick: they are capped at 9",
            scored(slips=frozenset({Slip.HONOURS_NOT_CAPPED})),
        )
        yield (
            "honours_left_out",
            "the honours were left out",
            scored(replace(facts, honours=(0, 0))),
        )
    other_seven = "double" if ruleset.seven_is == "single" else "single"
    yield (
        "seven_is",
        f"a game won with the losers at 7 was valued as a {other_seven}; this record's "
        f"ruleset (seven_is) makes it a {ruleset.seven_is}",
        scored(r=replace(ruleset, seven_is=other_seven)),
    )
    for u in UNITS:
        if u != facts.unit:
            yield (
                "wrong_unit",
                f"a trick was valued at {u}; {facts.contract.text} with this cayenne makes it "
                f"{facts.unit}",
                scored(replace(facts, unit=u)),
            )
