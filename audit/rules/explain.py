"""A hand's score explained: the lines the scorer writes while it scores.

:func:`audit.rules.scoring.score_hand` appends one :class:`Line` for every step of the book's
order (revoke penalty, tricks, honours, slams) and for every game, cap and rubber, as
it computes them, so the explanation can never disagree with the score. The audit
report carries the lines under each hand (``hands[].explanation``, docs/audit-report.md)
and the text and HTML reports print their ``reason``.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from typing import Any, NamedTuple

from audit.rules.cards import Seat, Side
from audit.rules.model import Score

__all__ = [
    "GAME_WORD",
    "SIDE_TEXT",
    "Explanation",
    "Line",
    "LineKind",
    "RevokeAt",
    "alpha_note",
    "claim_json",
    "explanation_json",
    "side_text",
]

SIDE_TEXT = ("N-S", "E-W")
"""How a side is written in a reason."""


class LineKind(StrEnum):
    """What a line of the explanation says; ``amount`` counts what the member says."""

    PENALTY_TRICKS = "penalty_tricks"
    """A revoke penalty of tricks: ``side`` revoked; ``amount`` tricks moved (away from
    it, or in a nullo to it)."""
    PENALTY_DEDUCT = "penalty_deduct"
    """A revoke penalty of points: ``amount`` points taken off the marker of ``side``
    (the side that revoked)."""
    PENALTY_ADD = "penalty_add"
    """A revoke penalty of points: ``amount`` points added to ``side`` (the adversaries
    of the side that revoked)."""
    TRICKS = "tricks"
    """Tricks over the book times the unit: ``amount`` points scored by ``side``."""
    HONOURS = "honours"
    """Each side's trump honours and whether they count: ``amount`` points they are
    worth to ``side`` (0 when they do not count; ``side`` null when nobody holds a
    majority or there are no trumps)."""
    CAP = "cap"
    """A side stopped at 9: ``amount`` points that did not go on its marker (0 for the
    notice that a side that revoked cannot win a game in the hand)."""
    GAME = "game"
    """A game won by ``side``: ``amount`` is its value on the sheet, from the losers'
    points at that moment."""
    RUBBER = "rubber"
    """``side`` won its fourth game: ``amount`` is the rubber bonus (8)."""
    SLAM = "slam"
    """Thirteen tricks: ``amount`` on the sheet of ``side`` (0 when denied: it revoked)."""
    LITTLE_SLAM = "little_slam"
    """Twelve tricks: ``amount`` on the sheet of ``side`` (0 when denied: it revoked)."""
    DROPPED = "dropped"
    """Points the rubber's end took off the marker: ``amount`` points of ``side``
    dropped (``side`` null for the end-of-rubber notice)."""


class Line(NamedTuple):
    """One step of a hand's score, in words a player accepts.

    A named tuple rather than a frozen dataclass: a tuple is several times cheaper to
    build. (The native fast path writes its hands' lines as JSON directly, with
    :func:`audit.rules.scoring.score_plain`.)"""

    kind: LineKind
    side: Side | None
    amount: int
    reason: str

    def to_json(self) -> dict[str, Any]:
        return {
            "kind": _KIND_TEXT[self.kind],
            "side": None if self.side is None else _SIDE_NAME[self.side],
            "amount": self.amount,
            "reason": self.reason,
        }


_KIND_TEXT = {k: k.value for k in LineKind}
_SIDE_NAME = ("NS", "EW")

Explanation = tuple[Line, ...]


@dataclass(frozen=True, slots=True)
class RevokeAt:
    """Where a revoke was made, and whether the record names its penalty."""

    trick: int
    seat: Seat
    recorded: bool
    """True when the record's ``penalties`` chose the option, false for the ruleset's default."""


def explanation_json(lines: Explanation) -> list[dict[str, Any]]:
    return [line.to_json() for line in lines]


GAME_WORD = {4: "a quadruple", 3: "a triple", 2: "a double", 1: "a single"}


def side_text(side: int) -> str:
    return SIDE_TEXT[side]


def alpha_note(alpha: float) -> str:
    """What ``alpha`` means, for the reports that print it."""
    return (
        f"alpha = {alpha:g} is the false-alarm level of the whole record: a deal or a "
        f"dealer is called stacked (an error) only below its share of alpha, so an honest "
        f"record of any length is called irregular with probability at most {alpha:g}; "
        f"a p-value below alpha that misses its share is a warning"
    )


def claim_json(claim: Score) -> dict[str, Any]:
    """A hand's ``claimed`` as the record gave it (``games``, ``bonuses`` only if given)."""
    obj = claim.to_json()
    if not claim.has_games:
        del obj["games"]
    if not claim.has_bonuses:
        del obj["bonuses"]
    return obj
