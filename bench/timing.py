"""Timing helpers shared by the benchmarks."""

from __future__ import annotations

import time
from collections.abc import Callable


def best_of(
    fn: Callable[[], object], repeat: int = 3, clock: Callable[[], float] = time.perf_counter
) -> float:
    """The fastest of ``repeat`` runs of ``fn``, in seconds (the least disturbed run);
    ``clock=time.process_time`` counts this process's CPU time only, for work on one core
    while other work shares the machine."""
    best = float("inf")
    for _ in range(repeat):
        t0 = clock()
        fn()
        best = min(best, clock() - t0)
    return best
