"""The small statistics of the analysis: Wilson intervals, the Poisson-binomial tail and
Holm's step-down control of the family-wise error rate."""

from __future__ import annotations

import math
from collections.abc import Sequence

__all__ = ["holm", "poisson_binomial_tail", "wilson"]


def wilson(k: int, n: int, z: float = 1.959964) -> tuple[float, float]:
    """The Wilson score interval of a proportion ``k / n`` (95% by default)."""
    if n <= 0:
        return (0.0, 1.0)
    p = k / n
    den = 1 + z * z / n
    mid = (p + z * z / (2 * n)) / den
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / den
    return (max(0.0, mid - half), min(1.0, mid + half))


def poisson_binomial_tail(probs: Sequence[float], observed: int) -> float:
    """``P(S >= observed)`` for ``S`` a sum of independent Bernoulli(``probs[i]``)."""
    if observed <= 0:
        return 1.0
    if observed > len(probs):
        return 0.0
    dist = [1.0]
    for p in probs:
        nxt = [0.0] * (len(dist) + 1)
        for j, mass in enumerate(dist):
            nxt[j] += mass * (1 - p)
            nxt[j + 1] += mass * p
        dist = nxt
    return min(1.0, math.fsum(dist[observed:]))


def holm(pvalues: Sequence[float]) -> list[float]:
    """Holm's adjusted p-values: reject where ``adjusted <= alpha`` and the chance of any
    false rejection among the family is at most ``alpha``, whatever their dependence."""
    m = len(pvalues)
    order = sorted(range(m), key=lambda i: pvalues[i])
    adjusted = [1.0] * m
    running = 0.0
    for rank, i in enumerate(order):
        running = max(running, min(1.0, (m - rank) * pvalues[i]))
        adjusted[i] = running
    return adjusted
