"""Where each block of the reference went: its *signature*.

A block's signature is the multiset of the four hands its cards were dealt to, the
hands counted from the dealer's left (0) round to the dealer (3). There are 35 such
multisets. The order of the cards inside a block is unknown when the tricks were
gathered, so the hands-only statistic is built on signatures alone.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from itertools import combinations_with_replacement

from audit.cards import Card, Seat

SIGNATURES: tuple[tuple[int, ...], ...] = tuple(combinations_with_replacement(range(4), 4))
"""The 35 multisets of four relative seats, sorted."""
NSIG = len(SIGNATURES)

_POW8 = (1, 8, 64, 512)
_CODE_TO_SIG: list[int] = [-1] * (4 * 512 + 1)
for _i, _s in enumerate(SIGNATURES):
    _CODE_TO_SIG[sum(_POW8[r] for r in _s)] = _i
CODE_TO_SIG: tuple[int, ...] = tuple(_CODE_TO_SIG)
"""Signature index from the packed count ``sum(8 ** rel_seat)`` of a block."""
POW8 = _POW8


def relative_seats(deal: Mapping[Seat, Sequence[Card]], dealer: Seat) -> list[int]:
    """For each card, its hand counted from the dealer's left (0) to the dealer (3)."""
    rel = [0] * 52
    for seat, cards in deal.items():
        r = (seat - dealer - 1) & 3
        for c in cards:
            rel[c] = r
    return rel


def signatures(blocks: Sequence[Sequence[Card]], rel: Sequence[int]) -> list[int]:
    """The signature index of each block."""
    return [
        CODE_TO_SIG[POW8[rel[b[0]]] + POW8[rel[b[1]]] + POW8[rel[b[2]]] + POW8[rel[b[3]]]]
        for b in blocks
    ]


def _falling(n: int, k: int) -> int:
    out = 1
    for i in range(k):
        out *= n - i
    return out


def _orderings(sig: Sequence[int]) -> int:
    """How many ordered 4-tuples of seats have this multiset."""
    counts = [sig.count(r) for r in range(4)]
    out = 24
    for c in counts:
        for i in range(2, c + 1):
            out //= i
    return out


def null_single() -> list[float]:
    """P(a given block has each signature) when the deal is uniformly random."""
    out = []
    for s in SIGNATURES:
        p = _orderings(s)
        for r in range(4):
            p *= _falling(13, s.count(r))
        out.append(p / _falling(52, 4))
    return out


def null_pair() -> list[float]:
    """P(two given blocks have signatures ``(i, j)``), flattened ``i * 35 + j``."""
    denom = _falling(52, 8)
    out = []
    for s in SIGNATURES:
        for t in SIGNATURES:
            p = _orderings(s) * _orderings(t)
            for r in range(4):
                p *= _falling(13, s.count(r) + t.count(r))
            out.append(p / denom)
    return out
