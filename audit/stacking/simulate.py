"""Simulated shuffles and deals, for building the null tables, the benchmark and the tests.

Nothing here runs in the audit path: every function takes an injected
``random.Random`` so that tables and benchmarks are reproducible from a seed.

The riffle model is Gilbert–Shannon–Reeds (GSR). ``k`` riffles compose to one
``a``-shuffle with ``a = 2**k`` (Bayer and Diaconis, *Trailing the dovetail shuffle
to its lair*, 1992): give each of the 52 places of the new pack an independent
uniform digit in ``0..a-1``; the places with digit ``j``, top first, receive the
``j``-th packet of the old pack, where the packet sizes are the digit counts.
"""

from __future__ import annotations

import random
from collections.abc import Sequence

from audit.rules.cards import Card, Side

__all__ = [
    "Tricks",
    "book_cheat_pack",
    "cut",
    "gathered_pack",
    "random_tricks",
    "riffle",
    "thorough",
]

Tricks = list[list[Card]]


def riffle(pack: Sequence[Card], riffles: int, rng: random.Random) -> list[Card]:
    """``riffles`` GSR riffle shuffles of ``pack`` (top first); 0 returns a copy."""
    if riffles <= 0:
        return list(pack)
    a = 1 << riffles
    n = len(pack)
    digits = [rng.randrange(a) for _ in range(n)]
    counts = [0] * a
    for d in digits:
        counts[d] += 1
    start = [0] * a
    acc = 0
    for j in range(a):
        start[j] = acc
        acc += counts[j]
    out: list[Card] = []
    for d in digits:
        out.append(pack[start[d]])
        start[d] += 1
    return out


def cut(pack: Sequence[Card], rng: random.Random, *, margin: int = 4) -> list[Card]:
    """Cut the pack: at least ``margin`` cards in each part, the cut point uniform."""
    n = len(pack)
    c = rng.randint(margin, n - margin)
    return list(pack[c:]) + list(pack[:c])


def thorough(rng: random.Random) -> list[Card]:
    """A uniformly random pack (the honest dealer's thorough shuffle)."""
    pack = list(range(52))
    rng.shuffle(pack)
    return pack


def random_tricks(rng: random.Random) -> tuple[Tricks, dict[Side, list[int]]]:
    """Thirteen tricks of four cards (a random partition) and a random gathering.

    The stacking statistics are invariant to what the cards are, so a random partition
    stands in for a played hand; each trick goes to a random side.
    """
    pack = thorough(rng)
    tricks = [pack[4 * i : 4 * i + 4] for i in range(13)]
    gathered: dict[Side, list[int]] = {Side.NS: [], Side.EW: []}
    for t in range(1, 14):
        gathered[Side(rng.randrange(2))].append(t)
    return tricks, gathered


def gathered_pack(
    tricks: Tricks,
    gathered: dict[Side, list[int]],
    rng: random.Random,
    first_on_top: bool | None = None,
) -> list[Card]:
    """The pack as the players put it together after the hand (top first).

    Each side stacks its tricks face down in the order won, so its last trick is on
    top; or (half the time: producers differ on which end of ``gathered`` is the top)
    each pile has its first trick on top. One pile goes on the other, either way up at
    random, and each trick's four cards lie in play order or reversed, at random: the
    unknowns of the detector. ``first_on_top`` fixes the producer's convention.
    """
    if first_on_top is None:
        first_on_top = rng.random() < 0.5
    piles: list[list[Card]] = []
    for side in (Side.NS, Side.EW):
        pile: list[Card] = []
        order = gathered[side] if first_on_top else list(reversed(gathered[side]))
        for t in order:
            cards = list(tricks[t - 1])
            if rng.random() < 0.5:
                cards.reverse()
            pile.extend(cards)
        piles.append(pile)
    if rng.random() < 0.5:
        piles.reverse()
    return piles[0] + piles[1]


def book_cheat_pack(pack: Sequence[Card], rng: random.Random) -> list[Card]:
    """The book's greek: two tricks with the same eight located cards and two between.

    ``pack`` is the pack as gathered (thirteen tricks of four, top first). He takes two
    of its tricks (in play, two tricks of one suit), puts two other tricks between
    them, and places the four on top of the rest, which stay as gathered. The
    opponent then cuts (by the caller), and he deals 6-7.
    """
    blocks = [list(pack[4 * i : 4 * i + 4]) for i in range(13)]
    picks = rng.sample(range(13), 4)
    top = [blocks[picks[0]], blocks[picks[2]], blocks[picks[3]], blocks[picks[1]]]
    rest = [b for i, b in enumerate(blocks) if i not in picks]
    return [c for b in top + rest for c in b]
