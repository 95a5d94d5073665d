"""Matchpoints, Neuberg's formula and adjusted scores (shared/spec/tournaments.md).

On a board every NS result is compared with the other NS results: 1 for each it
beats, 1/2 for each it ties; EW gets the top minus NS, the top being the number of
results minus one. When a board has fewer results (n) than the most any board has
(N), each matchpoint m becomes (m + 1/2) N / n - 1/2, so every board is worth the
same top, N - 1. An adjusted score is not a result: it is compared with nothing,
does not count in n, and scores a fixed share of that top (average 50%, average plus
60%, average minus 40%).

Everything is exact (:class:`fractions.Fraction`); rounding is for output only.
A fouled board (two versions of one board) is scored version by version, each scaled
by Neuberg to the full top (docs/tournaments.md).
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from dataclasses import dataclass
from enum import Enum
from fractions import Fraction

__all__ = [
    "HALF",
    "Adjustment",
    "BoardResult",
    "matchpoints",
    "most_results",
    "neuberg",
    "score_board",
]

HALF = Fraction(1, 2)


class Adjustment(Enum):
    """An adjusted score the director gives a pair for a board it could not play."""

    AVERAGE = "average"
    """50% of the board's top."""
    AVERAGE_PLUS = "average-plus"
    """60%: the pair was not at fault."""
    AVERAGE_MINUS = "average-minus"
    """40%: the pair was at fault."""

    @property
    def share(self) -> Fraction:
        return _SHARE[self]


_SHARE = {
    Adjustment.AVERAGE: Fraction(1, 2),
    Adjustment.AVERAGE_PLUS: Fraction(3, 5),
    Adjustment.AVERAGE_MINUS: Fraction(2, 5),
}


@dataclass(frozen=True, slots=True)
class BoardResult:
    """One table's outcome on a board: a result (``ns_score``) or two adjustments.

    ``version`` tells apart the versions of a fouled board: results are compared only
    with results of the same version.
    """

    ns_score: int | None
    adjusted: tuple[Adjustment, Adjustment] | None = None
    """(NS's, EW's) adjustment when the board was not played, else ``None``."""
    version: Hashable = 0

    def __post_init__(self) -> None:
        if (self.ns_score is None) == (self.adjusted is None):
            raise ValueError("a board result is either a score or an adjustment")


def matchpoints(scores: Sequence[int]) -> list[Fraction]:
    """Each score's matchpoints against the others: 1 per score beaten, 1/2 per tie."""
    ordered = sorted(scores)
    out = []
    for s in scores:
        below = _count_below(ordered, s)
        ties = _count_below(ordered, s, inclusive=True) - below - 1
        out.append(below + HALF * ties)
    return out


def _count_below(ordered: Sequence[int], value: int, *, inclusive: bool = False) -> int:
    lo, hi = 0, len(ordered)
    while lo < hi:
        mid = (lo + hi) // 2
        if ordered[mid] < value or (inclusive and ordered[mid] == value):
            lo = mid + 1
        else:
            hi = mid
    return lo


def neuberg(m: Fraction, n: int, most: int) -> Fraction:
    """Matchpoints ``m`` out of a top of ``n - 1``, scaled to a top of ``most - 1``."""
    if n < 1 or most < n:
        raise ValueError("Neuberg needs 1 <= n <= most")
    if n == most:
        return m
    return (m + HALF) * most / n - HALF


def most_results(boards: Sequence[Sequence[BoardResult]]) -> int:
    """N: the most results (adjustments not counted) any board has, at least 1."""
    return max([1, *(sum(r.ns_score is not None for r in b) for b in boards)])


def score_board(results: Sequence[BoardResult], most: int) -> list[tuple[Fraction, Fraction]]:
    """``(NS matchpoints, EW matchpoints)`` of each result, in order, on a top of
    ``most - 1`` (``most``: :func:`most_results` over the event)."""
    top = Fraction(most - 1)
    out: list[tuple[Fraction, Fraction] | None] = [None] * len(results)
    versions: dict[Hashable, list[int]] = {}
    for i, r in enumerate(results):
        if r.adjusted is not None:
            out[i] = (r.adjusted[0].share * top, r.adjusted[1].share * top)
        else:
            versions.setdefault(r.version, []).append(i)
    for indexes in versions.values():
        if len(indexes) > most:
            raise ValueError(f"a board has {len(indexes)} results, more than most={most}")
        scores = [results[i].ns_score for i in indexes]
        mps = matchpoints([s for s in scores if s is not None])
        for i, m in zip(indexes, mps, strict=True):
            ns = neuberg(m, len(indexes), most)
            out[i] = (ns, top - ns)
    return [o for o in out if o is not None]
