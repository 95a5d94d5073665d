"""A second, independent verifier written from docs/shuffle-protocol.md alone.

It imports nothing from the project: only the standard library. The golden-vector tests
run it beside the package, so a change to either that breaks the published protocol,
or a doc that no longer says enough to reimplement it, shows up as a disagreement.
"""

from __future__ import annotations

import hashlib
import hmac
from math import comb
from typing import Any

SEATS = "NESW"
RANKS = "23456789TJQKA"
SUITS = "SHDC"


def card_name(c: int) -> str:
    return RANKS[c % 13] + SUITS[c // 13]


def fld(b: bytes) -> bytes:
    return len(b).to_bytes(4, "big") + b


def frm(label: str, *fields: bytes) -> bytes:
    return fld(label.encode("ascii")) + b"".join(fld(f) for f in fields)


def u64(n: int) -> bytes:
    return n.to_bytes(8, "big")


def server_commitment(t: dict[str, Any]) -> bytes:
    return hashlib.sha256(
        frm(
            "cayenne-shuffle/v1/commit/server",
            t["table"].encode(),
            u64(t["hand"]),
            bytes.fromhex(t["server"]["seed"]),
        )
    ).digest()


def seat_commitment(t: dict[str, Any], seat: str) -> bytes:
    e = t["seats"][seat]
    return hashlib.sha256(
        frm(
            "cayenne-shuffle/v1/commit/seat",
            t["table"].encode(),
            u64(t["hand"]),
            seat.encode(),
            e["player"].encode(),
            bytes.fromhex(e["seed"]),
        )
    ).digest()


def key_input(t: dict[str, Any]) -> bytes:
    b = t.get("beacon")
    beacon = (
        b""
        if b is None
        else frm(
            "cayenne-shuffle/v1/beacon",
            b["source"].encode(),
            u64(b["round"]),
            bytes.fromhex(b["randomness"]),
        )
    )
    return frm(
        "cayenne-shuffle/v1/key",
        t["table"].encode(),
        u64(t["hand"]),
        bytes([t["pack"]]),
        t["dealer"].encode(),
        bytes(t["pattern"]),
        beacon,
        bytes.fromhex(t["server"]["seed"]),
        *(bytes.fromhex(t["seats"][s]["seed"]) for s in SEATS),
    )


class Stream:
    def __init__(self, key: bytes, label: str) -> None:
        self.key, self.label, self.data, self.counter = key, label, b"", 0

    def byte(self, pos: int) -> int:
        while pos >= len(self.data):
            msg = fld(self.label.encode()) + u64(self.counter)
            self.data += hmac.new(self.key, msg, hashlib.sha256).digest()
            self.counter += 1
        return self.data[pos]


def shuffled(key: bytes, label: str) -> list[int]:
    s = Stream(key, label)
    pos = 0
    pack = list(range(52))
    for i in range(51, 0, -1):
        n = i + 1
        limit = 256 - 256 % n
        while True:
            b = s.byte(pos)
            pos += 1
            if b < limit:
                break
        j = b % n
        pack[i], pack[j] = pack[j], pack[i]
    return pack


def deal(order: list[int], dealer: str, pattern: list[int]) -> dict[str, list[int]]:
    hands: dict[str, list[int]] = {s: [] for s in SEATS}
    it = iter(order)
    for size in pattern:
        seat = (SEATS.index(dealer) + 1) % 4
        for _ in range(4):
            for _ in range(size):
                hands[SEATS[seat]].append(next(it))
            seat = (seat + 1) % 4
    return hands


def big_deal_code_to_hand(g: int) -> dict[str, set[int]]:
    """Big Deal's code_to_hand loop, transcribed (cards 0..51 = AS, KS, ..., 2C)."""
    skips: dict[int, list[int]] = {}
    for compass in range(3):
        c = 1
        for i in range(2, 3 - compass + 1):
            c *= comb(i * 13, 13)
        n = 13 * (4 - compass)
        a = 0
        skips[compass] = []
        for j in range(13):
            t1 = comb(n - a - j, 13 - j)
            b = a
            while True:
                t2 = comb(n - b - 1 - j, 13 - j)
                if (t1 - t2) * c > g:
                    break
                b += 1
            g -= (comb(n - a - j, 13 - j) - comb(n - b - j, 13 - j)) * c
            skips[compass].append(b)
            a = b
    # cnv_int_byh: skip values to cards, hand by hand over the cards left.
    left = list(range(52))
    out: dict[str, set[int]] = {}
    for compass in range(3):
        chosen = [left[b + j] for j, b in enumerate(skips[compass])]
        out[SEATS[compass]] = set(chosen)
        left = [x for x in left if x not in out[SEATS[compass]]]
    out["W"] = set(left)
    return out


def big_deal_index(card: int) -> int:
    return (card // 13) * 13 + 12 - card % 13


def verify(t: dict[str, Any]) -> dict[str, Any]:
    """Recompute everything; raise AssertionError on any failure."""
    assert hmac.compare_digest(server_commitment(t), bytes.fromhex(t["server"]["commitment"]))
    for s in SEATS:
        assert hmac.compare_digest(
            seat_commitment(t, s), bytes.fromhex(t["seats"][s]["commitment"])
        )
    key = hashlib.sha256(key_input(t)).digest()
    order = shuffled(key, "cayenne-shuffle/v1/stream/dealing")
    still = shuffled(key, "cayenne-shuffle/v1/stream/still")
    hands = deal(order, t["dealer"], t["pattern"])
    g = int(t["deal_number"])
    bd = big_deal_code_to_hand(g)
    for s in SEATS:
        assert bd[s] == {big_deal_index(c) for c in hands[s]}, f"deal number disagrees for {s}"
    assert card_name(still[0]) == t["cayenne"]
    return {
        "key": key.hex(),
        "pack_order": [card_name(c) for c in order],
        "still_order": [card_name(c) for c in still],
        "deal": {s: [card_name(c) for c in hands[s]] for s in SEATS},
        "cayenne": card_name(still[0]),
    }
