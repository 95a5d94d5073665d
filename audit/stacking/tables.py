"""The shipped tables (``data/tables.json``) and the p-values read from them.

How the tables are made is in :mod:`audit.stacking.calibrate`, which writes them as
the generated module :mod:`audit.stacking.tables_data`. Reading them is the only
thing the audit path does with them: no simulation happens while auditing.

Each null law is stored as its upper tail: the values ``t_j`` with
``P(S >= t_j) = 10**(-j/25)`` under a thorough shuffle, down to the depth the
simulation supports (30 samples beyond the last value).
"""

from __future__ import annotations

import math
from bisect import bisect_left
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from audit.errors import FairplayError
from audit.stacking.order import exact_p_value

__all__ = [
    "MIN_P",
    "TEST_RIFFLES",
    "PatternTables",
    "StackingTablesError",
    "Tables",
    "TailTable",
    "load_tables",
    "pattern_tables",
]

TEST_RIFFLES = 2
"""The hands statistic is the Markov chain of the advances learnt after this many
riffles; its single weights (``weights_by_riffles[TEST_RIFFLES]``) also pick the
trick orientation shown in the evidence."""
MIN_P = 1e-15
"""The smallest p-value reported: below it an extrapolation means nothing."""


class StackingTablesError(FairplayError):
    """The detector's shipped tables are missing or malformed (an installation fault)."""

    code = "STACKING_TABLES"


@dataclass(frozen=True, slots=True)
class TailTable:
    """An upper tail tabulated at tail probabilities ``10**(-j/steps)``."""

    grid: tuple[float, ...]
    steps: int

    @property
    def deepest(self) -> float:
        """The smallest tail probability tabulated."""
        return float(10.0 ** (-(len(self.grid) - 1) / self.steps))

    def p_value(self, score: float, *, extrapolate: bool = True) -> float:
        """``P(S >= score)``, interpolated in log p between the tabulated values.

        At a tabulated value shared by several quantiles (an atom of a discrete
        statistic) the largest of their probabilities. Beyond the deepest value:
        extrapolated on the slope of the last decade, or (``extrapolate=False``) the
        deepest tabulated probability, a conservative floor.
        """
        grid = self.grid
        step = 1.0 / self.steps
        if score <= grid[0]:
            return 1.0
        j = bisect_left(grid, score)  # the first tabulated value at or above the score
        if j == len(grid):
            if not extrapolate:
                return self.deepest
            hi = len(grid) - 1
            span = min(self.steps, hi)
            slope = (span * step) / max(grid[hi] - grid[hi - span], 1e-9)
            log10p = -hi * step - slope * (score - grid[hi])
            return max(float(10.0**log10p), MIN_P)
        if grid[j] == score:
            # an atom of a discrete statistic: the shallowest of the tied values, so
            # that P(S >= score) is not understated
            return float(10.0 ** (-j * step))
        t0, t1 = grid[j - 1], grid[j]
        return float(10.0 ** (-(j - 1 + (score - t0) / (t1 - t0)) * step))


@dataclass(frozen=True, slots=True)
class PatternTables:
    """The hands statistic's weights and null laws for one packet pattern."""

    weights_by_riffles: tuple[tuple[float, ...], ...]
    """Log-likelihood ratio of each advance after ``k`` riffles, ``k = 0..7``."""
    test_weights: tuple[float, ...]
    """The statistic's single weights: minus ``weights_by_riffles[TEST_RIFFLES]``."""
    pair_weights: tuple[tuple[float, ...], ...]
    """The statistic's pair weights: ratio of advance ``a`` followed by ``b``."""
    plain_weights: tuple[float, ...]
    """The other half of the mixture: single weights, the average of one and two riffles."""
    chain_offset: float
    """Subtracted from the chain's score before mixing (its null tail lies higher)."""
    null: TailTable
    """Orientation of the tricks and direction of the cycle unknown (``gathered``)."""
    null_one_way: TailTable
    """Orientation unknown, direction given by the caller."""
    null_oriented: TailTable
    """Card order known (``collected``)."""


@dataclass(frozen=True, slots=True)
class Tables:
    patterns: dict[tuple[int, ...], PatternTables]
    order_null: TailTable
    """Minus the two-way soft minimum of ``W`` (orientations and directions)."""
    order_null_one_way: TailTable
    """Minus the soft minimum of ``W`` over orientations, direction given."""
    samples: int

    def order_p_value(self, soft_w: float, scale: float, *, two_way: bool = True) -> float:
        """``P(soft-min W <= soft_w)`` under a thorough shuffle.

        Beyond the table, the smaller of its deepest probability and the exact union
        bound: over ``R`` readings of the cycle (2**14 with the direction unknown,
        2**13 with it given), each of which has the Eulerian law, the soft minimum is
        at least ``min W - log2(R) log 2 / scale``, so
        ``P <= R * P_euler(W <= soft_w + log2(R) log 2 / scale)``.
        """
        table = self.order_null if two_way else self.order_null_one_way
        bits = 14 if two_way else 13
        p = table.p_value(-soft_w, extrapolate=False)
        if p > table.deepest:
            return p
        w = math.floor(soft_w + bits * math.log(2.0) / scale + 1e-9)
        bound = (1 << bits) * exact_p_value(w)
        return max(min(p, bound), MIN_P)


def _tail(raw: Any, steps: int) -> TailTable:
    grid = tuple(float(t) for t in raw)
    if len(grid) < 2 or any(b < a for a, b in zip(grid, grid[1:], strict=False)):
        raise ValueError("a null tail must be increasing with at least two values")
    return TailTable(grid, steps)


def _four(raw: Any) -> tuple[float, ...]:
    weights = tuple(float(w) for w in raw)
    if len(weights) != 4:
        raise ValueError("four weights, one per advance")
    return weights


def _pairs(raw: Any) -> tuple[tuple[float, ...], ...]:
    rows = tuple(tuple(float(w) for w in row) for row in raw)
    if len(rows) != 4 or any(len(row) != 4 for row in rows):
        raise ValueError("pair weights must be 4 x 4")
    return rows


def _parse(raw: Any) -> Tables:
    try:
        steps = int(raw["grid_steps_per_decade"])
        patterns: dict[tuple[int, ...], PatternTables] = {}
        for entry in raw["patterns"].values():
            by_k = tuple(tuple(float(w) for w in ws) for ws in entry["weights_by_riffles"])
            if len(by_k) <= TEST_RIFFLES or any(len(ws) != 4 for ws in by_k):
                raise ValueError(f"weights for 0..{TEST_RIFFLES} riffles or more, 4 each")
            patterns[tuple(int(x) for x in entry["pattern"])] = PatternTables(
                by_k,
                _four(entry["test_weights"]),
                _pairs(entry["pair_weights"]),
                _four(entry["plain_weights"]),
                float(entry["chain_offset"]),
                _tail(entry["null_tail"], steps),
                _tail(entry["null_tail_one_way"], steps),
                _tail(entry["null_tail_oriented"], steps),
            )
        return Tables(
            patterns,
            _tail(raw["order_null_tail"], steps),
            _tail(raw["order_null_tail_one_way"], steps),
            int(raw["samples"]),
        )
    except (KeyError, TypeError, ValueError) as exc:
        raise StackingTablesError(f"audit.stacking.tables_data: malformed ({exc!r})") from exc


@lru_cache(maxsize=1)
def load_tables() -> Tables:
    """The shipped tables, checked once."""
    from audit.stacking.tables_data import TABLES

    return _parse(TABLES)


def pattern_tables(pattern: tuple[int, ...]) -> PatternTables | None:
    """The tables of a packet pattern, or ``None`` for a pattern without them."""
    return load_tables().patterns.get(pattern)
