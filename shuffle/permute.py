"""Fisher–Yates over the canonical card order.

The pack starts in the canonical order of :mod:`audit.rules.cards` (position ``p`` holds card
``p``: 2S 3S … AS 2H … AC). For ``i`` from 51 down to 1, draw ``j`` uniform in ``0..i``
and swap positions ``i`` and ``j``. Position 0 is then the top of the pack, the first
card dealt (the dealing pack) or the card turned for cayenne (the still pack).

Every one of the 52! orders comes from exactly one sequence of draws, so a uniform
sampler gives a uniform pack.
"""

from __future__ import annotations

import hmac

from audit.rules.cards import Card
from shuffle.kdf import field, u64
from shuffle.sampler import LIMIT, ByteStream, Draw

__all__ = ["CANONICAL", "permute", "shuffle_pack", "shuffle_pack_traced"]

CANONICAL: tuple[Card, ...] = tuple(range(52))
_COUNTERS: tuple[bytes, ...] = tuple(i.to_bytes(8, "big") for i in range(64))


_STEPS: tuple[tuple[int, int, int], ...] = tuple((i, i + 1, LIMIT[i + 1]) for i in range(51, 0, -1))


def shuffle_pack(key: bytes, label: bytes) -> list[Card]:
    """The pack shuffled by the stream ``label`` under ``key``, top card first.

    This is the hot path: it computes two blocks up front (the 51 draws read about 54
    bytes on average) and, in the rare case they run out, starts again with one block
    more (the result is a pure function of the stream, so restarting changes nothing).
    :func:`shuffle_pack_traced` is the plain byte-at-a-time version the tests compare with.
    """
    prefix = field(label)
    data = hmac.digest(key, prefix + _COUNTERS[0], "sha256") + hmac.digest(
        key, prefix + _COUNTERS[1], "sha256"
    )
    nblocks = 2
    while True:
        try:
            return _fisher_yates(data)
        except IndexError:
            counter = _COUNTERS[nblocks] if nblocks < 64 else u64(nblocks)
            data += hmac.digest(key, prefix + counter, "sha256")
            nblocks += 1


def _fisher_yates(data: bytes) -> list[Card]:
    """Fisher–Yates driven by ``data``; IndexError when ``data`` is too short."""
    pack = list(CANONICAL)
    pos = 0
    for i, n, limit in _STEPS:
        b = data[pos]
        pos += 1
        while b >= limit:
            b = data[pos]
            pos += 1
        j = b % n
        pack[i], pack[j] = pack[j], pack[i]
    return pack


def shuffle_pack_traced(key: bytes, label: bytes) -> tuple[list[Card], list[Draw], int]:
    """The same shuffle, also returning every draw and the number of HMAC blocks used."""
    stream = ByteStream(key, label)
    pack = list(CANONICAL)
    draws: list[Draw] = []
    for i in range(51, 0, -1):
        d = stream.draw(i + 1)
        draws.append(d)
        pack[i], pack[d.value] = pack[d.value], pack[i]
    return pack, draws, stream.blocks


def permute(draws: list[int]) -> list[Card]:
    """The pack given the 51 draw values ``j`` for ``i = 51, 50, ..., 1`` (testing aid)."""
    if len(draws) != 51:
        raise ValueError("Fisher-Yates over 52 cards takes 51 draws")
    pack = list(CANONICAL)
    for i, j in zip(range(51, 0, -1), draws, strict=True):
        if not 0 <= j <= i:
            raise ValueError(f"draw {j} out of range 0..{i}")
        pack[i], pack[j] = pack[j], pack[i]
    return pack
