"""The transcript of one hand's shuffle, its JSON form, and the derivation of the deal.

A :class:`Transcript` holds what the ceremony produced: the table, hand number, dealer,
packet pattern and pack label; the server's commitment and (after the hand) its seed;
each seat's player id, commitment and revealed seed; and an optional public beacon.
:func:`derive` turns a complete transcript into the pack order, the deal, the cayenne
card and the deal number. The JSON form is the record hand's ``shuffle`` object
(``shuffle/schema.json``; field by field in docs/shuffle-protocol.md).
"""

from __future__ import annotations

import json
import re
import secrets
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any, NamedTuple

from audit.errors import FairplayError
from audit.rules.cards import CARD_TEXT, Card, Seat, parse_card
from audit.rules.deal import DEFAULT_PATTERN, deal_from_order
from shuffle import kdf
from shuffle.dealnumber import DEAL_COUNT, deal_number_unchecked
from shuffle.errors import ShuffleFormatError, ShuffleIncompleteError
from shuffle.permute import shuffle_pack

__all__ = [
    "SEAT_ORDER",
    "Beacon",
    "Derived",
    "SeatEntry",
    "Transcript",
    "derive",
    "derive_key",
    "new_seed",
    "transcript_from_json",
    "transcript_to_json",
]

SEAT_ORDER: tuple[Seat, ...] = (Seat.N, Seat.E, Seat.S, Seat.W)
_HEX = re.compile(r"(?:[0-9a-f]{2})+")


def new_seed(rng: Callable[[int], bytes] = secrets.token_bytes) -> bytes:
    """A fresh 32-byte seed from the OS CSPRNG (``rng`` is injectable for tests)."""
    seed = rng(kdf.SERVER_SEED_BYTES)
    if len(seed) != kdf.SERVER_SEED_BYTES:
        raise ValueError("the seed source must return 32 bytes")
    return seed


server_commitment = kdf.server_commitment
seat_commitment = kdf.seat_commitment


@dataclass(frozen=True, slots=True)
class Beacon:
    """A public randomness beacon value mixed into the key (a drand round, say)."""

    source: str
    """Which beacon, e.g. ``"drand:quicknet"`` (the chain hash or a name documented for it)."""
    round: int
    """The beacon round, fixed before the commitments were made."""
    randomness: bytes
    """The round's published randomness (1..64 bytes)."""

    def key_field(self) -> bytes:
        return kdf.beacon_field(self.source, self.round, self.randomness)


@dataclass(frozen=True, slots=True)
class SeatEntry:
    """One seat's part: who sat there, the commitment, and the seed once revealed."""

    player: str
    commitment: bytes
    seed: bytes | None = None


@dataclass(frozen=True, slots=True)
class Transcript:
    """Everything needed to recompute and check one hand's shuffle."""

    table: str
    hand: int
    dealer: Seat
    server_commitment: bytes
    seats: tuple[SeatEntry, SeatEntry, SeatEntry, SeatEntry]
    """In seat order N, E, S, W."""
    pattern: tuple[int, ...] = DEFAULT_PATTERN
    pack: int = 0
    """Which of the table's two packs is dealt (the record hand's ``pack``)."""
    server_seed: bytes | None = None
    beacon: Beacon | None = None
    claimed_deal_number: int | None = None
    """The deal number the producer wrote down, checked by the verifier when present."""
    claimed_cayenne: Card | None = None
    """The cayenne card the producer wrote down, checked by the verifier when present."""
    extra: Mapping[str, Any] = field(default_factory=dict, compare=False)
    """``x-`` fields carried through unchanged (ignored by the protocol)."""

    def seat(self, seat: Seat) -> SeatEntry:
        return self.seats[seat]

    @property
    def complete(self) -> bool:
        """True when every seed (server's and seats') has been revealed."""
        return self.server_seed is not None and all(s.seed is not None for s in self.seats)

    def with_seat_seed(self, seat: Seat, seed: bytes) -> Transcript:
        seats = list(self.seats)
        seats[seat] = replace(seats[seat], seed=seed)
        return replace(self, seats=(seats[0], seats[1], seats[2], seats[3]))

    def with_server_seed(self, seed: bytes) -> Transcript:
        return replace(self, server_seed=seed)

    def with_outcome(self) -> Transcript:
        """This transcript with the derived deal number and cayenne card written in."""
        d = derive(self)
        return replace(self, claimed_deal_number=d.deal_number, claimed_cayenne=d.cayenne)

    def to_json(self) -> dict[str, Any]:
        return transcript_to_json(self)

    @classmethod
    def from_json(cls, obj: object) -> Transcript:
        return transcript_from_json(obj)


class Derived(NamedTuple):
    """What a complete transcript determines."""

    pack_order: list[Card]
    """The dealing pack, top card (first dealt) first."""
    deal: dict[Seat, list[Card]]
    """Each seat's cards in the order received."""
    cayenne: Card
    """The top card of the still pack after its own shuffle."""
    deal_number: int


def derive_key(t: Transcript) -> bytes:
    """The hand key (raises :class:`ShuffleIncompleteError` when a seed is missing)."""
    if t.server_seed is None:
        raise ShuffleIncompleteError("server.seed", "the server's seed has not been revealed")
    seeds: list[bytes] = []
    for seat in SEAT_ORDER:
        seed = t.seats[seat].seed
        if seed is None:
            raise ShuffleIncompleteError(
                f"seats.{seat.name}.seed", "this seat's seed was not revealed"
            )
        seeds.append(seed)
    return kdf.hand_key(
        table=t.table,
        hand=t.hand,
        pack=t.pack,
        dealer=t.dealer,
        pattern=t.pattern,
        beacon=t.beacon.key_field() if t.beacon is not None else b"",
        server_seed=t.server_seed,
        seat_seeds=seeds,
    )


def derive(t: Transcript) -> Derived:
    """Pack order, deal, cayenne card and deal number of a complete transcript.

    Does not check the commitments: :func:`shuffle.verify.verify_transcript` does.
    """
    key = derive_key(t)
    order = shuffle_pack(key, kdf.LABEL_DEALING)
    still = shuffle_pack(key, kdf.LABEL_STILL)
    deal = deal_from_order(order, t.dealer, t.pattern)
    return Derived(order, deal, still[0], deal_number_unchecked(deal))


# ---------------------------------------------------------------- JSON form

_TOP_KEYS = frozenset(
    {
        "protocol",
        "table",
        "hand",
        "dealer",
        "pack",
        "pattern",
        "server",
        "seats",
        "beacon",
        "deal_number",
        "cayenne",
    }
)
_REQUIRED_TOP = ("protocol", "table", "hand", "dealer", "pack", "pattern", "server", "seats")


def transcript_to_json(t: Transcript) -> dict[str, Any]:
    """The JSON object (the record's ``shuffle`` field); seeds appear once revealed."""
    server: dict[str, Any] = {"commitment": t.server_commitment.hex()}
    if t.server_seed is not None:
        server["seed"] = t.server_seed.hex()
    seats: dict[str, Any] = {}
    for seat in SEAT_ORDER:
        e = t.seats[seat]
        entry: dict[str, Any] = {"player": e.player, "commitment": e.commitment.hex()}
        if e.seed is not None:
            entry["seed"] = e.seed.hex()
        seats[seat.name] = entry
    out: dict[str, Any] = {
        "protocol": kdf.VERSION,
        "table": t.table,
        "hand": t.hand,
        "dealer": t.dealer.name,
        "pack": t.pack,
        "pattern": list(t.pattern),
        "server": server,
        "seats": seats,
    }
    if t.beacon is not None:
        out["beacon"] = {
            "source": t.beacon.source,
            "round": t.beacon.round,
            "randomness": t.beacon.randomness.hex(),
        }
    if t.claimed_deal_number is not None:
        out["deal_number"] = str(t.claimed_deal_number)
    if t.claimed_cayenne is not None:
        out["cayenne"] = CARD_TEXT[t.claimed_cayenne]
    out.update(t.extra)
    return out


def _obj(value: object, path: str, keys: frozenset[str], required: Sequence[str]) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise ShuffleFormatError(path, "must be an object")
    for k in value:
        if not isinstance(k, str) or (k not in keys and not k.startswith("x-")):
            # a name that is not printable (a line break) quoted, so the message stays one line
            name = k if isinstance(k, str) and k.isprintable() else json.dumps(str(k))
            raise ShuffleFormatError(_join(path, name), "unknown field")
    for k in required:
        if k not in value:
            raise ShuffleFormatError(_join(path, k), "missing")
    return value


def _join(path: str, key: str) -> str:
    return f"{path}.{key}" if path else key


def _text(value: object, path: str, *, allow_empty: bool) -> str:
    if not isinstance(value, str):
        raise ShuffleFormatError(path, "must be a string")
    try:
        n = len(value.encode())
    except UnicodeEncodeError:
        raise ShuffleFormatError(path, "is not valid Unicode text") from None
    if n > kdf.MAX_TEXT_BYTES or (n == 0 and not allow_empty):
        raise ShuffleFormatError(path, f"must be {0 if allow_empty else 1}..256 bytes of UTF-8")
    return value


def _int(value: object, path: str, lo: int, hi: int) -> int:
    if not isinstance(value, int) or isinstance(value, bool) or not lo <= value <= hi:
        raise ShuffleFormatError(path, f"must be an integer in {lo}..{hi}")
    return value


def _hex(value: object, path: str, lo: int, hi: int) -> bytes:
    """Lower-case hex of ``lo..hi`` bytes (one spelling only, so every byte is signed)."""
    if not isinstance(value, str) or _HEX.fullmatch(value) is None:
        raise ShuffleFormatError(path, "must be lower-case hexadecimal")
    if not lo <= len(value) // 2 <= hi:
        size = f"{lo}" if lo == hi else f"{lo}..{hi}"
        raise ShuffleFormatError(path, f"must be {size} bytes ({2 * lo} hex digits or more)")
    return bytes.fromhex(value)


def transcript_from_json(obj: object) -> Transcript:
    """Parse the JSON object; raises :class:`ShuffleFormatError` naming the field."""
    top = _obj(obj, "", _TOP_KEYS, _REQUIRED_TOP)
    if top["protocol"] != kdf.VERSION:
        raise ShuffleFormatError("protocol", f"must be {kdf.VERSION!r}")
    table = _text(top["table"], "table", allow_empty=False)
    hand = _int(top["hand"], "hand", 1, 2**63 - 1)
    dealer_text = top["dealer"]
    if not isinstance(dealer_text, str) or dealer_text not in ("N", "E", "S", "W"):
        raise ShuffleFormatError("dealer", "must be N, E, S or W")
    dealer = Seat[dealer_text]
    pack = _int(top["pack"], "pack", 0, 1)
    pattern_value = top["pattern"]
    if (
        not isinstance(pattern_value, list)
        or not pattern_value
        or any(
            not isinstance(n, int) or isinstance(n, bool) or not 1 <= n <= 13 for n in pattern_value
        )
        or sum(pattern_value) != 13
    ):
        raise ShuffleFormatError("pattern", "must be packet sizes (1..13) adding up to 13")
    pattern = tuple(pattern_value)

    server = _obj(top["server"], "server", frozenset({"commitment", "seed"}), ("commitment",))
    server_commit = _hex(server["commitment"], "server.commitment", 32, 32)
    server_seed = None
    if "seed" in server:
        server_seed = _hex(
            server["seed"], "server.seed", kdf.SERVER_SEED_BYTES, kdf.SERVER_SEED_BYTES
        )

    seats_obj = _obj(top["seats"], "seats", frozenset(("N", "E", "S", "W")), ("N", "E", "S", "W"))
    entries: list[SeatEntry] = []
    for seat in SEAT_ORDER:
        p = f"seats.{seat.name}"
        e = _obj(
            seats_obj[seat.name],
            p,
            frozenset({"player", "commitment", "seed"}),
            ("player", "commitment"),
        )
        seed = None
        if "seed" in e:
            seed = _hex(e["seed"], f"{p}.seed", kdf.SEAT_SEED_MIN, kdf.SEAT_SEED_MAX)
        entries.append(
            SeatEntry(
                player=_text(e["player"], f"{p}.player", allow_empty=True),
                commitment=_hex(e["commitment"], f"{p}.commitment", 32, 32),
                seed=seed,
            )
        )

    beacon = None
    if "beacon" in top:
        b = _obj(
            top["beacon"],
            "beacon",
            frozenset({"source", "round", "randomness"}),
            ("source", "round", "randomness"),
        )
        beacon = Beacon(
            source=_text(b["source"], "beacon.source", allow_empty=False),
            round=_int(b["round"], "beacon.round", 0, 2**64 - 1),
            randomness=_hex(b["randomness"], "beacon.randomness", 1, 64),
        )

    claimed_number = None
    if "deal_number" in top:
        dn = top["deal_number"]
        if (
            not isinstance(dn, str)
            or not dn.isascii()
            or not dn.isdigit()
            or (len(dn) > 1 and dn[0] == "0")
            or int(dn) >= DEAL_COUNT
        ):
            raise ShuffleFormatError("deal_number", "must be a decimal string 0..52!/(13!)^4 - 1")
        claimed_number = int(dn)
    claimed_cayenne = None
    if "cayenne" in top:
        try:
            claimed_cayenne = parse_card(top["cayenne"])
        except FairplayError:
            raise ShuffleFormatError("cayenne", f"{top['cayenne']!r} is not a card") from None
        if CARD_TEXT[claimed_cayenne] != top["cayenne"]:
            raise ShuffleFormatError("cayenne", "must be written in the two-character form")
    extra = {k: v for k, v in top.items() if k.startswith("x-")}
    return Transcript(
        table=table,
        hand=hand,
        dealer=dealer,
        server_commitment=server_commit,
        seats=(entries[0], entries[1], entries[2], entries[3]),
        pattern=pattern,
        pack=pack,
        server_seed=server_seed,
        beacon=beacon,
        claimed_deal_number=claimed_number,
        claimed_cayenne=claimed_cayenne,
        extra=extra,
    )
