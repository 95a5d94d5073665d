"""The test for play that knows too much: a pair's choices, where the view left the best
card open, against the deals its players could be facing and against the field on the
same boards (docs/analysis.md).

For each such decision the judge gives ``p``, the share of the ``samples + 1`` deals
(the true one among them) in which the card played is double-dummy best, and ``found``,
whether it is best in the true deal. Were the true deal one more draw from the view,
``found - p`` would have mean zero for any honest player, strong or weak. It is not
quite one: the cards played before carry information the draws ignore (a player who
could have won the trick cheaply and did not), and the simulation shows honest players
finding the best card less often than ``p`` says. That shortfall is a property of the
board and its play, not of the pair: the field on the same board, sitting the same way,
meets it too. So each board's share is the pair's ``found - p`` less the field's mean
``found - p`` per decision on that board, times the pair's decisions; its variance adds
the field mean's own. The pair's z is the sum over its boards over the root of the
summed variances, and its p-value the normal upper tail.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

__all__ = ["BoardShare", "Choice", "board_share", "field_test"]

Choice = tuple[float, bool]
"""``(p, found)`` of one decision the view left open."""


@dataclass(frozen=True, slots=True)
class BoardShare:
    """A pair's part of the statistic on one board."""

    excess: float
    """``sum(found - p)`` of the pair less its decisions times the field's mean."""
    variance: float
    decisions: int


def board_share(own: Sequence[Choice], field: Sequence[Choice]) -> BoardShare:
    n = len(own)
    excess = math.fsum(float(f) - p for p, f in own)
    variance = math.fsum(p * (1 - p) for p, _ in own)
    if field and n:
        m = len(field)
        excess -= n * math.fsum(float(f) - p for p, f in field) / m
        variance += n * n * math.fsum(p * (1 - p) for p, _ in field) / (m * m)
    return BoardShare(excess, variance, n)


def field_test(shares: Sequence[BoardShare]) -> tuple[float, float]:
    """The pair's z and its one-sided p-value (large z: more best cards than honest)."""
    variance = math.fsum(s.variance for s in shares)
    if variance <= 0:
        return 0.0, 1.0
    z = math.fsum(s.excess for s in shares) / math.sqrt(variance)
    return z, 0.5 * math.erfc(z / math.sqrt(2))
