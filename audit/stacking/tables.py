"""The shipped tables (``data/tables.json``) and the p-values read from them.

How the tables are made is in :mod:`audit.stacking.calibrate`. Reading them is the
only thing the audit path does with them: no simulation happens while auditing.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

from audit.errors import FairplayError
from audit.stacking.order import exact_p_value

TABLES_PATH = Path(__file__).with_name("data") / "tables.json"
ORIENTATIONS = 2**13
MIN_P = 1e-15
"""The smallest p-value reported: below it the extrapolation means nothing."""


class StackingTablesError(FairplayError):
    """The detector's shipped tables are missing or malformed (an installation fault)."""

    code = "STACKING_TABLES"


@dataclass(frozen=True, slots=True)
class PatternTables:
    weights_by_riffles: tuple[tuple[float, ...], ...]
    test_weights: tuple[float, ...]
    null_tail: tuple[float, ...]
    steps_per_decade: int

    def p_value(self, score: float) -> float:
        """``P(S >= score)`` under a thorough shuffle.

        Interpolated in log p between the tabulated tail quantiles; beyond the
        deepest one, extrapolated on the slope of the last decade.
        """
        grid = self.null_tail
        step = 1.0 / self.steps_per_decade
        if score <= grid[0]:
            return 1.0
        lo, hi = 0, len(grid) - 1
        if score >= grid[hi]:
            span = min(self.steps_per_decade, hi)
            slope = (span * step) / max(grid[hi] - grid[hi - span], 1e-9)
            log10p = -hi * step - slope * (score - grid[hi])
            return max(float(10.0**log10p), MIN_P)
        while hi - lo > 1:
            mid = (lo + hi) // 2
            if grid[mid] <= score:
                lo = mid
            else:
                hi = mid
        t0, t1 = grid[lo], grid[hi]
        frac = (score - t0) / (t1 - t0) if t1 > t0 else 0.0
        return float(10.0 ** (-(lo + frac) * step))


@dataclass(frozen=True, slots=True)
class Tables:
    patterns: dict[tuple[int, ...], PatternTables]
    order_cdf: tuple[float, ...]
    order_counts: tuple[int, ...]
    samples: int

    def order_p_value(self, w: int) -> float:
        """``P(min-orientation W <= w)`` under a thorough shuffle.

        The tabulated frequency where at least 30 of the simulated packs lie at or
        below ``w``; deeper, the exact union bound over the 2**13 orientations.
        """
        if w >= len(self.order_cdf) - 1:
            return 1.0
        if w < 0:
            return 0.0
        if self.order_counts[w] >= 30:
            return self.order_cdf[w]
        bound = ORIENTATIONS * exact_p_value(w)
        floor = 30 / self.samples
        return max(min(bound, floor), MIN_P) if bound > 0 else MIN_P


def _parse(raw: Any) -> Tables:
    try:
        patterns: dict[tuple[int, ...], PatternTables] = {}
        for entry in raw["patterns"].values():
            patterns[tuple(int(x) for x in entry["pattern"])] = PatternTables(
                tuple(tuple(float(w) for w in ws) for ws in entry["weights_by_riffles"]),
                tuple(float(w) for w in entry["test_weights"]),
                tuple(float(t) for t in entry["null_tail"]),
                int(raw["grid_steps_per_decade"]),
            )
        hist = [int(c) for c in raw["order_null_histogram"]]
        samples = int(raw["samples"])
    except (KeyError, TypeError, ValueError) as exc:
        raise StackingTablesError(f"{TABLES_PATH.name}: malformed ({exc!r})") from exc
    cum = 0
    counts: list[int] = []
    for c in hist:
        cum += c
        counts.append(cum)
    cdf = tuple(c / samples for c in counts)
    return Tables(patterns, cdf, tuple(counts), samples)


@lru_cache(maxsize=1)
def load_tables() -> Tables:
    """The shipped tables, read once."""
    try:
        raw = json.loads(TABLES_PATH.read_text())
    except (OSError, ValueError) as exc:
        raise StackingTablesError(f"cannot read {TABLES_PATH}: {exc}") from exc
    return _parse(raw)


def pattern_tables(pattern: tuple[int, ...]) -> PatternTables | None:
    """The tables of a packet pattern, or ``None`` for a pattern without them."""
    return load_tables().patterns.get(pattern)
