"""The full-order statistic: rising sequences of the dealt pack against the reference.

Bayer and Diaconis (1992): after ``k`` Gilbert–Shannon–Reeds riffles of a pack in a
known order, a permutation with ``r`` rising sequences has probability
``C(2**k + n - r, n) / 2**(k n)``, so ``r`` is all the order says about ``k``.

Cuts before or after the riffles only rotate things, so the detector counts *cyclic*
descents: reading the reference as a cycle, ``W`` is the number of neighbours whose
second card was dealt before the first. ``W`` is the winding number of the reference
round the dealt pack, the same for every cut of the dealt pack, and equal to the
fewest rising sequences over the cuts of the old pack. ``k`` riffles give
``W <= 2**k``; a thorough shuffle gives ``W - 1`` distributed as the descents of a
uniform permutation of 51 (Eulerian numbers), about 26 on average.

When the order inside each trick is unknown (``gathered``), the test takes a soft
minimum of ``W`` over the 2**13 ways the tricks may lie (a two-state dynamic
programme) and over both directions of the cycle (whether a pile's first trick lies on
top or at the bottom); that statistic has no closed-form null law, so its distribution
is tabulated (``audit.stacking.calibrate``) with an exact union bound in the far tail.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from functools import lru_cache

from audit.rules.cards import Card

__all__ = [
    "N",
    "SOFT_MIN_SCALE",
    "cyclic_descents",
    "eulerian_cdf",
    "exact_p_value",
    "log_likelihood_ratio",
    "min_cyclic_descents",
    "most_likely_riffles",
    "positions",
    "soft_min_descents",
    "two_way_soft_min",
]

N = 52


def positions(order: Sequence[Card]) -> list[int]:
    """``pos[card]``: the card's place in the dealt order, 0 for the first card dealt."""
    pos = [0] * N
    for i, c in enumerate(order):
        pos[c] = i
    return pos


def cyclic_descents(reference: Sequence[Card], pos: Sequence[int]) -> int:
    """``W`` for a reference whose card order is known (a ``collected`` pack)."""
    n = len(reference)
    prev = pos[reference[n - 1]]
    w = 0
    for c in reference:
        p = pos[c]
        if p < prev:
            w += 1
        prev = p
    return w


def min_cyclic_descents(
    blocks: Sequence[Sequence[Card]], pos: Sequence[int]
) -> tuple[int, list[bool]]:
    """The least ``W`` over the orientations of the blocks, and one best orientation.

    The orientation list says, for each block, whether its cards lie reversed.
    """
    first: list[tuple[int, int]] = []
    last: list[tuple[int, int]] = []
    inner: list[tuple[int, int]] = []
    for b in blocks:
        p0 = pos[b[0]]
        p1 = pos[b[1]]
        p2 = pos[b[2]]
        p3 = pos[b[3]]
        d = (p1 < p0) + (p2 < p1) + (p3 < p2)
        first.append((p0, p3))
        last.append((p3, p0))
        inner.append((d, 3 - d))
    n = len(blocks)
    best = 10**9
    best_path: list[bool] = []
    for o0 in (0, 1):
        big = 10**6
        v = [inner[0][0] if o0 == 0 else big, inner[0][1] if o0 == 1 else big]
        back: list[tuple[int, int]] = []
        for i in range(1, n):
            l0, l1 = last[i - 1]
            nv = [0, 0]
            choice = [0, 0]
            for o in (0, 1):
                f = first[i][o]
                c0 = v[0] + (f < l0)
                c1 = v[1] + (f < l1)
                if c1 < c0:
                    nv[o], choice[o] = c1 + inner[i][o], 1
                else:
                    nv[o], choice[o] = c0 + inner[i][o], 0
            back.append((choice[0], choice[1]))
            v = nv
        f = first[0][o0]
        l0, l1 = last[n - 1]
        for o in (0, 1):
            total = v[o] + (f < (l0 if o == 0 else l1))
            if total < best:
                best = total
                path = [o]
                for ch in reversed(back):
                    path.append(ch[path[-1]])
                path.reverse()
                best_path = [bool(x) for x in path]
    return best, best_path


SOFT_MIN_SCALE = 2.0
"""``lambda`` of :func:`soft_min_descents`: large enough to stay close to the minimum,
small enough to count how many orientations come close to it."""


def soft_min_descents(
    blocks: Sequence[Sequence[Card]], pos: Sequence[int], scale: float = SOFT_MIN_SCALE
) -> float:
    """``-log(sum_o exp(-scale * W_o)) / scale`` over the 2**13 orientations ``o``.

    A smooth minimum of ``W``: at most the least ``W``, and at least that minus
    ``13 log 2 / scale``. Unlike the minimum it is continuous, so its p-values use the
    whole significance level, and it rewards a deal that many orientations explain.
    """
    e = math.exp(-scale)
    first: list[tuple[int, int]] = []
    last: list[tuple[int, int]] = []
    inner: list[tuple[float, float]] = []
    for b in blocks:
        p0 = pos[b[0]]
        p1 = pos[b[1]]
        p2 = pos[b[2]]
        p3 = pos[b[3]]
        d = (p1 < p0) + (p2 < p1) + (p3 < p2)
        first.append((p0, p3))
        last.append((p3, p0))
        inner.append((e**d, e ** (3 - d)))
    n = len(blocks)
    total = 0.0
    for o0 in (0, 1):
        v0 = inner[0][0] if o0 == 0 else 0.0
        v1 = inner[0][1] if o0 == 1 else 0.0
        for i in range(1, n):
            l0, l1 = last[i - 1]
            f0, f1 = first[i]
            i0, i1 = inner[i]
            v0, v1 = (
                (v0 * (e if f0 < l0 else 1.0) + v1 * (e if f0 < l1 else 1.0)) * i0,
                (v0 * (e if f1 < l0 else 1.0) + v1 * (e if f1 < l1 else 1.0)) * i1,
            )
        f = first[0][o0]
        l0, l1 = last[n - 1]
        total += v0 * (e if f < l0 else 1.0) + v1 * (e if f < l1 else 1.0)
    return -math.log(total) / scale


def two_way_soft_min(
    blocks: Sequence[Sequence[Card]], pos: Sequence[int], scale: float = SOFT_MIN_SCALE
) -> tuple[float, bool]:
    """The soft minimum of ``W`` over orientations *and* both directions of the cycle.

    Read backwards, every descent of the cycle becomes an ascent, so the backward ``W``
    is the forward count of ascents: the descents of the pack with positions negated.
    The flag is ``True`` when the backward reading explains the deal better.
    """
    forward = soft_min_descents(blocks, pos, scale)
    backward = soft_min_descents(blocks, [N - 1 - p for p in pos], scale)
    low = min(forward, backward)
    total = math.exp(-scale * (forward - low)) + math.exp(-scale * (backward - low))
    return low - math.log(total) / scale, backward < forward


@lru_cache(maxsize=1)
def eulerian_cdf() -> tuple[float, ...]:
    """``cdf[w] = P(W <= w)`` for a uniform permutation of 52 (exact, from integers)."""
    m = N - 1
    row = [1]  # Eulerian numbers A(1, j)
    for size in range(2, m + 1):
        new = [0] * size
        for j in range(size):
            a = row[j] if j < len(row) else 0
            b = row[j - 1] if j >= 1 else 0
            new[j] = (j + 1) * a + (size - j) * b
        row = new
    total = math.factorial(m)
    cdf = [0.0] * (N + 1)
    acc = 0
    for w in range(1, N + 1):
        if w - 1 < len(row):
            acc += row[w - 1]
        cdf[w] = acc / total
    return tuple(cdf)


def exact_p_value(w: int) -> float:
    """``P(W <= w)`` after a thorough shuffle, for a reference of known card order."""
    if w <= 0:
        return 0.0
    return eulerian_cdf()[min(w, N)]


def log_likelihood_ratio(w: int, riffles: int) -> float:
    """``log P_k(pi) / P_uniform(pi)`` for a permutation with ``w`` rising sequences."""
    a = 1 << riffles
    top = a + N - w
    if top < N:
        return -math.inf
    log_binom = math.lgamma(top + 1) - math.lgamma(N + 1) - math.lgamma(top - N + 1)
    return log_binom - N * riffles * math.log(2.0) + math.lgamma(N + 1)


def most_likely_riffles(w: int, max_riffles: int = 12) -> tuple[int, float]:
    """The number of GSR riffles that best explains ``w``, and its log-likelihood ratio."""
    best_k, best = 0, -math.inf
    for k in range(max_riffles + 1):
        llr = log_likelihood_ratio(w, k)
        if llr > best:
            best_k, best = k, llr
    return best_k, best
