"""Percentages, places, and the match values of a rubber round robin.

**Places.** Pairs are ranked by their score (duplicate: the percentage; round robin:
the total match value), compared exactly; equal scores share the place, written
``"3-4"``. Within a shared place pairs are listed by name, so the order never depends
on the order the results arrived in.

**Match value** (rubber round robin): over the rubbers of a match, a pair's sheet total
minus the opponents'. A rubber unfinished when the match ends counts the games and
slams already on its sheet, no rubber bonus, and drops the points on the marker,
which is what :class:`audit.rules.scoring.Rubber` totals say of an unfinished rubber.
"""

from __future__ import annotations

from collections.abc import Hashable, Mapping, Sequence
from fractions import Fraction
from typing import TypeVar

from audit.rules.model import Record
from audit.rules.sitting import score_record

__all__ = ["match_value", "percentage", "places", "round_half_up", "totals"]

K = TypeVar("K", bound=Hashable)


def percentage(matchpoints: Fraction, top: Fraction) -> Fraction:
    """``matchpoints`` over ``top`` as a percentage; 50 when there was nothing to win
    (every board played once: nothing to compare)."""
    if top == 0:
        return Fraction(50)
    return 100 * matchpoints / top


def round_half_up(value: Fraction, digits: int = 2) -> float:
    """``value`` rounded half away from zero to ``digits`` decimals, for output."""
    scale = 10**digits
    q = abs(value) * scale
    whole = int(q + Fraction(1, 2))
    return float((whole if value >= 0 else -whole) / scale)


def places(scores: Mapping[K, Fraction], name: Mapping[K, str]) -> list[tuple[K, str]]:
    """Every key with its place, best first: ``"1"``, or ``"3-4"`` for a tie of two at 3.

    ``name`` orders the keys within a tie."""
    ordered = sorted(scores, key=lambda k: (-scores[k], name[k]))
    out: list[tuple[K, str]] = []
    i = 0
    while i < len(ordered):
        j = i
        while j + 1 < len(ordered) and scores[ordered[j + 1]] == scores[ordered[i]]:
            j += 1
        place = str(i + 1) if i == j else f"{i + 1}-{j + 1}"
        out.extend((k, place) for k in ordered[i : j + 1])
        i = j + 1
    return out


def match_value(record: Record) -> int:
    """NS's match value in a round-robin match (EW's is its negative): the sum over the
    rubbers of the NS sheet total minus EW's. Hands that cannot be replayed score
    nothing (the audit reports them)."""
    sheet = score_record(record).sheet
    return sum(ns - ew for ns, ew in (r.totals() for r in sheet.rubbers))


def totals(values: Sequence[tuple[K, int]]) -> dict[K, Fraction]:
    """Each key's total of its values (a pair's match values over the event)."""
    out: dict[K, Fraction] = {}
    for key, v in values:
        out[key] = out.get(key, Fraction(0)) + v
    return out
