"""Byte encodings, domain-separation labels, commitments and the hand key.

Everything hashed is a *frame*: a label and then fields, each written as a 4-byte
big-endian length followed by its bytes. Lengths make the encoding injective (no two
different field lists give the same bytes) and the label, which carries the protocol
version, keeps a commitment from ever being read as a key or a stream block.
docs/shuffle-protocol.md gives the layouts byte by byte.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence

from audit.rules.cards import Seat

__all__ = [
    "LABEL_BEACON",
    "LABEL_DEALING",
    "LABEL_KEY",
    "LABEL_SEAT_COMMIT",
    "LABEL_SERVER_COMMIT",
    "LABEL_STILL",
    "MAX_TEXT_BYTES",
    "SEAT_SEED_MAX",
    "SEAT_SEED_MIN",
    "SERVER_SEED_BYTES",
    "VERSION",
    "beacon_field",
    "field",
    "frame",
    "hand_key",
    "key_input",
    "seat_commitment",
    "server_commitment",
    "sha256",
    "u32",
    "u64",
]

VERSION = "cayenne-shuffle/1"
"""The transcript's ``protocol`` value; the labels below carry the same version."""

LABEL_SERVER_COMMIT = b"cayenne-shuffle/v1/commit/server"
LABEL_SEAT_COMMIT = b"cayenne-shuffle/v1/commit/seat"
LABEL_BEACON = b"cayenne-shuffle/v1/beacon"
LABEL_KEY = b"cayenne-shuffle/v1/key"
LABEL_DEALING = b"cayenne-shuffle/v1/stream/dealing"
LABEL_STILL = b"cayenne-shuffle/v1/stream/still"

SERVER_SEED_BYTES = 32
SEAT_SEED_MIN = 16
SEAT_SEED_MAX = 64
MAX_TEXT_BYTES = 256


def u32(n: int) -> bytes:
    """4-byte big-endian unsigned integer."""
    return n.to_bytes(4, "big")


def u64(n: int) -> bytes:
    """8-byte big-endian unsigned integer."""
    return n.to_bytes(8, "big")


def field(data: bytes) -> bytes:
    """``u32(len(data)) || data``."""
    return len(data).to_bytes(4, "big") + data


def frame(label: bytes, *fields: bytes) -> bytes:
    """``field(label) || field(f1) || ... || field(fn)``."""
    return field(label) + b"".join(field(f) for f in fields)


def sha256(data: bytes) -> bytes:
    return hashlib.sha256(data).digest()


def server_commitment(server_seed: bytes, table: str, hand: int) -> bytes:
    """SHA-256 of frame(commit/server, table, u64(hand), server_seed)."""
    return sha256(frame(LABEL_SERVER_COMMIT, table.encode(), u64(hand), server_seed))


def seat_commitment(seed: bytes, seat: Seat, player_id: str, table: str, hand: int) -> bytes:
    """SHA-256 of frame(commit/seat, table, u64(hand), seat letter, player id, seed).

    The seat letter and the player id are inside the hash, so a commitment copied
    from another seat (or another table or hand) does not open for the copier.
    """
    return sha256(
        frame(
            LABEL_SEAT_COMMIT,
            table.encode(),
            u64(hand),
            Seat(seat).name.encode(),
            player_id.encode(),
            seed,
        )
    )


def beacon_field(source: str, round_: int, randomness: bytes) -> bytes:
    """The beacon's part of the key input: frame(beacon, source, u64(round), randomness)."""
    return frame(LABEL_BEACON, source.encode(), u64(round_), randomness)


def hand_key(
    *,
    table: str,
    hand: int,
    pack: int,
    dealer: Seat,
    pattern: Sequence[int],
    beacon: bytes,
    server_seed: bytes,
    seat_seeds: Sequence[bytes],
) -> bytes:
    """The 32-byte key of the hand, from which both packs' streams are drawn.

    ``beacon`` is :func:`beacon_field` output, or ``b""`` when the hand has no beacon.
    ``seat_seeds`` are in seat order N, E, S, W.
    """
    return sha256(key_input(table, hand, pack, dealer, pattern, beacon, server_seed, seat_seeds))


def key_input(
    table: str,
    hand: int,
    pack: int,
    dealer: Seat,
    pattern: Sequence[int],
    beacon: bytes,
    server_seed: bytes,
    seat_seeds: Sequence[bytes],
) -> bytes:
    """The exact bytes hashed into the hand key (exposed for the golden vectors)."""
    return frame(
        LABEL_KEY,
        table.encode(),
        u64(hand),
        bytes([pack]),
        Seat(dealer).name.encode(),
        bytes(pattern),
        beacon,
        server_seed,
        *seat_seeds,
    )
