"""The record's decision: when stacking findings make a record irregular.

Every tested hand keeps its p-value, but testing each hand at ``alpha`` makes a long
honest record almost sure to be called irregular (1,000 hands at 0.001: two in
three). The error is therefore a decision about the record whose false-alarm rate is
at most ``alpha`` whatever its length (audit-report contract, ``STACKED_DEAL``):

- half of ``alpha`` is shared among the tested deals (Bonferroni): a deal is an
  error when its p-value is below ``alpha / 2 / n`` (``n`` deals tested), which
  catches one blatant deal in a long record;
- the other half is shared among the dealers with at least two tested deals: a
  dealer's deals are pooled by Fisher's method (:func:`combine_p_values`) and are an
  error when the pooled p-value is below ``alpha / 2 / m`` (``m`` such dealers),
  which catches a dealer who stacks every deal a little.

Without a dealer to pool, the deals get the whole of ``alpha``. By the union bound an
honest record (every p-value uniform or conservative) is irregular with probability
at most ``alpha``; the deals need not be independent of one another for that. A
batch is decided record by record, each at ``alpha``. A p-value below ``alpha`` that
misses its share is evidence, reported as a warning, not an error.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from audit.rules.cards import Seat
from audit.stacking.detector import StackingResult

__all__ = ["RecordThresholds", "record_thresholds"]


@dataclass(frozen=True, slots=True)
class RecordThresholds:
    """The levels at which one record's stacking findings are errors."""

    alpha: float
    deals: int
    """Deals tested in the record."""
    dealers: int
    """Dealers with at least two tested deals (pooled)."""
    deal: float
    """A deal's p-value below this is an error (``STACKED_DEAL``)."""
    dealer: float
    """A dealer's pooled p-value below this is an error (``STACKED_DEALER``)."""


def record_thresholds(
    results: Sequence[tuple[Seat, StackingResult | None]], alpha: float
) -> RecordThresholds:
    """The error levels of a record, from its results hand by hand (``None``: untested).

    ``alpha`` is split between the deals and the pooled dealers as the module says;
    each level is ``0`` when there is nothing to test at it.
    """
    per_dealer: dict[Seat, int] = {}
    for dealer, result in results:
        if result is not None:
            per_dealer[Seat(dealer)] = per_dealer.get(Seat(dealer), 0) + 1
    n = sum(per_dealer.values())
    m = sum(1 for k in per_dealer.values() if k >= 2)
    share = alpha / 2 if m else alpha
    return RecordThresholds(
        alpha=alpha,
        deals=n,
        dealers=m,
        deal=share / n if n else 0.0,
        dealer=(alpha - share) / m if m else 0.0,
    )
