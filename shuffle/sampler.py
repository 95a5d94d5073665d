"""The counter-mode byte stream and the unbiased integer sampler.

Block ``i`` (``i = 0, 1, 2, ...``) of the stream labelled ``L`` under key ``K`` is
``HMAC-SHA256(K, field(L) || u64(i))``; the stream is the blocks concatenated. HMAC-SHA256
is a PRF every language ships, so any verifier can recompute it.

A uniform integer in ``0..n-1`` (``2 <= n <= 256``) is drawn one byte at a time by
rejection: with ``limit = 256 - 256 % n`` (the largest multiple of ``n`` not above 256),
a byte ``b < limit`` gives ``b % n`` and a byte ``b >= limit`` is thrown away and the
next byte is read. Each residue is the image of exactly ``limit / n`` accepted bytes,
so there is no modulo bias (tests enumerate this for every ``n`` from 2 to 52).
"""

from __future__ import annotations

import hmac
from dataclasses import dataclass

from shuffle.kdf import field, u64

__all__ = ["BLOCK_BYTES", "LIMIT", "ByteStream", "Draw", "accept_limit", "accepts", "block"]

BLOCK_BYTES = 32

LIMIT: tuple[int, ...] = tuple(0 if n == 0 else 256 - 256 % n for n in range(257))
"""``LIMIT[n]``: bytes below it are accepted for a draw in ``0..n-1``."""


def accept_limit(n: int) -> int:
    """The acceptance bound for a draw in ``0..n-1``; bytes ``>=`` it are rejected."""
    if not 1 <= n <= 256:
        raise ValueError(f"a byte draw ranges over 1..256 values, not {n}")
    return LIMIT[n]


def accepts(n: int, b: int) -> int | None:
    """The acceptance rule: the value byte ``b`` gives for a draw in ``0..n-1``, or None."""
    return b % n if b < accept_limit(n) else None


def block(key: bytes, label: bytes, index: int) -> bytes:
    """Block ``index`` of the stream ``label`` under ``key``."""
    return hmac.digest(key, field(label) + u64(index), "sha256")


@dataclass(slots=True)
class Draw:
    """One sampler draw, for transcripts of the derivation (golden vectors, docs)."""

    n: int
    """The range: the value is in ``0..n-1``."""
    value: int
    consumed: list[tuple[int, int]]
    """The ``(stream offset, byte)`` pairs read, the rejected ones first."""


class ByteStream:
    """The stream ``label`` under ``key``, read a byte at a time."""

    __slots__ = ("_key", "_prefix", "_buf", "_pos", "_next_block", "blocks")

    def __init__(self, key: bytes, label: bytes) -> None:
        self._key = key
        self._prefix = field(label)
        self._buf = b""
        self._pos = 0
        self._next_block = 0
        self.blocks = 0
        """How many HMAC blocks have been computed so far."""

    @property
    def offset(self) -> int:
        """How many bytes have been read."""
        return self._pos

    def next_byte(self) -> int:
        if self._pos == len(self._buf):
            self._buf += hmac.digest(self._key, self._prefix + u64(self._next_block), "sha256")
            self._next_block += 1
            self.blocks += 1
        b = self._buf[self._pos]
        self._pos += 1
        return b

    def uniform(self, n: int) -> int:
        """A uniform integer in ``0..n-1`` by the rejection rule of the module docstring."""
        limit = accept_limit(n)
        while True:
            b = self.next_byte()
            if b < limit:
                return b % n

    def draw(self, n: int) -> Draw:
        """Like :meth:`uniform`, recording every byte read."""
        limit = accept_limit(n)
        consumed: list[tuple[int, int]] = []
        while True:
            at = self._pos
            b = self.next_byte()
            consumed.append((at, b))
            if b < limit:
                return Draw(n, b % n, consumed)
