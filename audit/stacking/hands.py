"""The hands-only statistic: does each hand follow the reference around the table?

When only the four hands are known, each card tells us the hand it reached, counted
from the dealer's left (0) round to the dealer (3). Walk the reference cycle card by
card: for two neighbouring cards of the old pack, their *advance* is the difference of
their hands modulo 4. After a thorough shuffle it is 0 with probability 12/51 and each
other value with 13/51. After few riffles two neighbours usually stay a few places
apart in the new pack, so they land in the same packet (advance 0) or the next packet
(advance 1): packet dealing keeps tricks together. Dealt one card at a time, an
unshuffled pack gives advance 1 to every pair: each trick is spread one card per hand.
One statistic covers both, because the weights are learnt per packet pattern from
simulated under-shuffled packs (``audit.stacking.calibrate``). Which way round the
cycle runs (whether a pile's first trick lies on top or at the bottom) is also left
open: :func:`two_way_score` sums over both readings.

A score is the log-likelihood ratio ``log sum_o exp(sum w[advance] + sum
pairs[advance][next advance])`` over the 2**13 ways the tricks may lie (each trick's
cards in play order or reversed), computed by a two-state dynamic programme round the
cycle: with pair weights it reads the advances as a Markov chain. The detector's
statistic is :func:`mixed` of two such scores, the chain learnt after two riffles
(lowered by its null offset) and single advances (docs/detection.md). Its null
distribution, which does not depend on the cards, the dealer or the reference, is
tabulated per pattern from a million thorough shuffles.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence

from audit.rules.cards import Card, Seat

__all__ = [
    "advance_score",
    "advances",
    "best_orientation",
    "mirrored",
    "mirrored_pairs",
    "mixed",
    "oriented_score",
    "relative_seats",
    "tricks_in_one_hand",
    "tricks_spread",
    "two_way_score",
]


def relative_seats(deal: Mapping[Seat, Sequence[Card]], dealer: Seat) -> list[int]:
    """For each card, its hand counted from the dealer's left (0) to the dealer (3)."""
    rel = [0] * 52
    for seat, cards in deal.items():
        r = (seat - dealer - 1) & 3
        for c in cards:
            rel[c] = r
    return rel


Pairs = Sequence[Sequence[float]]
"""``pairs[a][b]``: the weight of advance ``a`` followed by advance ``b`` round the cycle."""

_NO_PAIRS: tuple[tuple[float, ...], ...] = ((0.0,) * 4,) * 4


def _exp_weights(weights: Sequence[float]) -> tuple[tuple[float, ...], tuple[float, ...]]:
    e = tuple(math.exp(w) for w in weights)
    return e, (e[0], e[3], e[2], e[1])


def advance_score(
    blocks: Sequence[Sequence[Card]],
    rel: Sequence[int],
    weights: Sequence[float],
    pairs: Pairs | None = None,
) -> float:
    """``log`` of the sum over trick orientations of ``exp(sum of advance weights)``.

    ``rel[card]`` is the card's hand counted from the dealer's left; ``weights[a]`` the
    weight of advance ``a``, and ``pairs[a][b]`` (optional) that of advance ``a``
    followed by advance ``b`` (a first-order Markov chain of the advances: its
    log-likelihood ratio is ``sum pairs - sum weights`` with the pair and single
    ratios). The blocks form a cycle.
    """
    e, _ = _exp_weights(weights)
    ep = [_exp_weights(row)[0] for row in (pairs if pairs is not None else _NO_PAIRS)]
    first: list[tuple[int, int]] = []
    last: list[tuple[int, int]] = []
    head: list[tuple[int, int]] = []  # the block's first advance, each orientation
    tail: list[tuple[int, int]] = []  # its last advance
    within: list[tuple[float, float]] = []
    for b in blocks:
        s0 = rel[b[0]]
        s1 = rel[b[1]]
        s2 = rel[b[2]]
        s3 = rel[b[3]]
        a = (s1 - s0) & 3
        c = (s2 - s1) & 3
        d = (s3 - s2) & 3
        ra = (s2 - s3) & 3  # reversed: the advances -d, -c, -a
        rc = (s1 - s2) & 3
        rd = (s0 - s1) & 3
        first.append((s0, s3))
        last.append((s3, s0))
        head.append((a, ra))
        tail.append((d, rd))
        within.append(
            (
                e[a] * e[c] * e[d] * ep[a][c] * ep[c][d],
                e[ra] * e[rc] * e[rd] * ep[ra][rc] * ep[rc][rd],
            )
        )

    n = len(blocks)
    # the weight of stepping from block i - 1 (lying q) to block i (lying o), i = 1..n
    steps: list[tuple[float, float, float, float]] = []
    for i in range(1, n + 1):
        j = i % n
        t = []
        for o in (0, 1):
            f = first[j][o]
            h = head[j][o]
            for q in (0, 1):
                x = (f - last[i - 1][q]) & 3
                t.append(e[x] * ep[tail[i - 1][q]][x] * ep[x][h])
        steps.append((t[0], t[1], t[2], t[3]))  # (q0 o0, q1 o0, q0 o1, q1 o1)
    total = 0.0
    for o0 in (0, 1):
        v0 = within[0][0] if o0 == 0 else 0.0
        v1 = within[0][1] if o0 == 1 else 0.0
        for i in range(1, n):
            w0, w1 = within[i]
            t00, t10, t01, t11 = steps[i - 1]
            v0, v1 = (v0 * t00 + v1 * t10) * w0, (v0 * t01 + v1 * t11) * w1
        t00, t10, t01, t11 = steps[n - 1]
        total += v0 * t00 + v1 * t10 if o0 == 0 else v0 * t01 + v1 * t11
    return math.log(total) if total > 0.0 else -math.inf


def mirrored(weights: Sequence[float]) -> tuple[float, ...]:
    """The weights of advances read the other way round the cycle (``a`` becomes ``-a``)."""
    return (weights[0], weights[3], weights[2], weights[1])


def mirrored_pairs(pairs: Pairs) -> tuple[tuple[float, ...], ...]:
    """Pair weights read the other way round: ``a`` then ``b`` becomes ``-b`` then ``-a``."""
    return tuple(tuple(pairs[(-b) & 3][(-a) & 3] for b in range(4)) for a in range(4))


def two_way_score(
    blocks: Sequence[Sequence[Card]],
    rel: Sequence[int],
    weights: Sequence[float],
    pairs: Pairs | None = None,
) -> tuple[float, bool]:
    """The advance score with the pack's direction unknown, and the likelier direction.

    Whether a producer's ``gathered`` lists the top of each pile first or last is not
    something a record can be trusted on, so both readings of the cycle count, each
    with prior 1/2: ``log((exp(S_forward) + exp(S_backward)) / 2)``. Reading the cycle
    backwards turns every advance ``a`` into ``-a`` (and reverses the pairs). The flag
    is ``True`` when the backward reading scores higher.
    """
    forward = advance_score(blocks, rel, weights, pairs)
    backward = advance_score(
        blocks, rel, mirrored(weights), None if pairs is None else mirrored_pairs(pairs)
    )
    top = max(forward, backward)
    if top == -math.inf:
        return top, False
    total = top + math.log(math.exp(forward - top) + math.exp(backward - top)) - math.log(2.0)
    return total, backward > forward


def mixed(a: float, b: float) -> float:
    """``log((exp(a) + exp(b)) / 2)``: the score of an even mixture of two alternatives."""
    top = max(a, b)
    if top == -math.inf:
        return top
    return top + math.log(math.exp(a - top) + math.exp(b - top)) - math.log(2.0)


def oriented_score(
    cycle: Sequence[Card],
    rel: Sequence[int],
    weights: Sequence[float],
    pairs: Pairs | None = None,
) -> float:
    """The advance score of a reference whose card order is known (``collected``)."""
    n = len(cycle)
    prev = rel[cycle[n - 1]]
    steps = []
    for c in cycle:
        r = rel[c]
        steps.append((r - prev) & 3)
        prev = r
    total = 0.0
    before = steps[n - 1]
    for a in steps:
        total += weights[a]
        if pairs is not None:
            total += pairs[before][a]
        before = a
    return total


def best_orientation(
    blocks: Sequence[Sequence[Card]], rel: Sequence[int], weights: Sequence[float]
) -> list[bool]:
    """The orientation (``True``: block reversed) with the largest advance score."""
    wr = (weights[0], weights[3], weights[2], weights[1])
    first: list[tuple[int, int]] = []
    last: list[tuple[int, int]] = []
    within: list[tuple[float, float]] = []
    for b in blocks:
        s = [rel[c] for c in b]
        steps = [(s[i + 1] - s[i]) & 3 for i in range(len(s) - 1)]
        first.append((s[0], s[-1]))
        last.append((s[-1], s[0]))
        within.append((sum(weights[a] for a in steps), sum(wr[a] for a in steps)))
    n = len(blocks)
    best = -math.inf
    best_path: list[bool] = []
    for o0 in (0, 1):
        v = [within[0][0] if o0 == 0 else -math.inf, within[0][1] if o0 == 1 else -math.inf]
        back: list[tuple[int, int]] = []
        for i in range(1, n):
            choice = [0, 0]
            nv = [0.0, 0.0]
            for o in (0, 1):
                f = first[i][o]
                c0 = v[0] + weights[(f - last[i - 1][0]) & 3]
                c1 = v[1] + weights[(f - last[i - 1][1]) & 3]
                choice[o] = 1 if c1 > c0 else 0
                nv[o] = max(c0, c1) + within[i][o]
            back.append((choice[0], choice[1]))
            v = nv
        f = first[0][o0]
        for o in (0, 1):
            total = v[o] + weights[(f - last[n - 1][o]) & 3]
            if total > best:
                best = total
                path = [o]
                for ch in reversed(back):
                    path.append(ch[path[-1]])
                path.reverse()
                best_path = [bool(x) for x in path]
    return best_path


def advances(
    blocks: Sequence[Sequence[Card]], rel: Sequence[int], reversed_blocks: Sequence[bool]
) -> list[int]:
    """Counts of advances 0..3 between neighbours of the reference, blocks oriented."""
    counts = [0, 0, 0, 0]
    cards = [c for b, r in zip(blocks, reversed_blocks, strict=True) for c in (b[::-1] if r else b)]
    n = len(cards)
    for i in range(n):
        counts[(rel[cards[(i + 1) % n]] - rel[cards[i]]) & 3] += 1
    return counts


def tricks_in_one_hand(blocks: Sequence[Sequence[Card]], rel: Sequence[int]) -> list[int]:
    """Indices of the blocks whose four cards all went to one hand."""
    return [i for i, b in enumerate(blocks) if rel[b[0]] == rel[b[1]] == rel[b[2]] == rel[b[3]]]


def tricks_spread(blocks: Sequence[Sequence[Card]], rel: Sequence[int]) -> list[int]:
    """Indices of the blocks whose four cards went one to each hand."""
    return [i for i, b in enumerate(blocks) if len({rel[c] for c in b}) == 4]
