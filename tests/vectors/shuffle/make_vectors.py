"""Regenerate the cayenne-shuffle/1 golden vectors (run from the repository root).

    .venv/bin/python tests/vectors/shuffle/make_vectors.py

The output is committed; tests/shuffle/test_vectors.py checks the package against it
and against an independent implementation written from docs/shuffle-protocol.md alone.
Regenerating must not change a byte unless the protocol version changes.
"""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

from audit.rules.cards import CARD_TEXT, Seat
from audit.rules.deal import PATTERN_67, PATTERN_445, PATTERN_ONE_AT_A_TIME
from shuffle import kdf
from shuffle.dealnumber import DEAL_COUNT, deal_from_number
from shuffle.permute import shuffle_pack_traced
from shuffle.protocol import SEAT_ORDER, Beacon, SeatEntry, Transcript, derive, derive_key
from shuffle.sampler import LIMIT, block
from shuffle.verify import verify_transcript

HERE = Path(__file__).resolve().parent


def cards(cs: list[int]) -> list[str]:
    return [CARD_TEXT[c] for c in cs]


def make_transcript(
    table: str,
    hand: int,
    dealer: Seat,
    pattern: tuple[int, ...],
    pack: int,
    server_seed: bytes,
    seats: dict[Seat, tuple[str, bytes]],
    beacon: Beacon | None,
) -> Transcript:
    entries = [
        SeatEntry(p, kdf.seat_commitment(s, seat, p, table, hand), s)
        for seat, (p, s) in ((seat, seats[seat]) for seat in SEAT_ORDER)
    ]
    return Transcript(
        table=table,
        hand=hand,
        dealer=dealer,
        server_commitment=kdf.server_commitment(server_seed, table, hand),
        seats=(entries[0], entries[1], entries[2], entries[3]),
        pattern=pattern,
        pack=pack,
        server_seed=server_seed,
        beacon=beacon,
    ).with_outcome()


def describe(name: str, note: str, t: Transcript) -> dict[str, Any]:
    key = derive_key(t)
    assert t.server_seed is not None
    key_in = kdf.key_input(
        t.table,
        t.hand,
        t.pack,
        t.dealer,
        t.pattern,
        t.beacon.key_field() if t.beacon else b"",
        t.server_seed,
        [e.seed or b"" for e in t.seats],
    )
    streams: dict[str, Any] = {}
    for sname, label in (("dealing", kdf.LABEL_DEALING), ("still", kdf.LABEL_STILL)):
        pack, draws, nblocks = shuffle_pack_traced(key, label)
        rejections = [
            {"i": 52 - k - 1, "n": d.n, "offset": off, "byte": b, "limit": LIMIT[d.n]}
            for k, d in enumerate(draws)
            for off, b in d.consumed[:-1]
        ]
        streams[sname] = {
            "label": label.decode(),
            "blocks_used": nblocks,
            "first_blocks": [block(key, label, i).hex() for i in range(2)],
            "draws": [d.value for d in draws],
            "bytes_read": draws[-1].consumed[-1][0] + 1,
            "rejections": rejections,
            "order": cards(pack),
        }
    d = derive(t)
    return {
        "name": name,
        "note": note,
        "inputs": {
            "table": t.table,
            "hand": t.hand,
            "dealer": t.dealer.name,
            "pack": t.pack,
            "pattern": list(t.pattern),
            "server_seed": t.server_seed.hex(),
            "seats": {
                s.name: {"player": t.seats[s].player, "seed": (t.seats[s].seed or b"").hex()}
                for s in SEAT_ORDER
            },
            "beacon": None
            if t.beacon is None
            else {
                "source": t.beacon.source,
                "round": t.beacon.round,
                "randomness": t.beacon.randomness.hex(),
            },
        },
        "server_commitment_input": kdf.frame(
            kdf.LABEL_SERVER_COMMIT, t.table.encode(), kdf.u64(t.hand), t.server_seed
        ).hex(),
        "server_commitment": t.server_commitment.hex(),
        "seat_commitments": {s.name: t.seats[s].commitment.hex() for s in SEAT_ORDER},
        "key_input": key_in.hex(),
        "key": key.hex(),
        "streams": streams,
        "pack_order": cards(d.pack_order),
        "deal": {s.name: cards(d.deal[s]) for s in SEAT_ORDER},
        "cayenne": CARD_TEXT[d.cayenne],
        "deal_number": str(d.deal_number),
        "transcript": t.to_json(),
    }


def first_draw_rejected_hand(server_seed: bytes, seats: dict[Seat, tuple[str, bytes]]) -> int:
    """The first hand number whose dealing stream rejects its very first byte."""
    for hand in range(1, 10_000):
        t = make_transcript("table-1", hand, Seat.N, PATTERN_445, 0, server_seed, seats, None)
        if block(derive_key(t), kdf.LABEL_DEALING, 0)[0] >= LIMIT[52]:
            return hand
    raise AssertionError("no hand found")


def tampered(base: dict[str, Any]) -> list[dict[str, Any]]:
    """Transcripts that must fail, with the error code and field the verifier names."""
    out: list[dict[str, Any]] = []

    def case(name: str, code: str, path: str, edit: Any) -> None:
        t = copy.deepcopy(base)
        edit(t)
        out.append({"name": name, "code": code, "path": path, "transcript": t})

    def flip_hex(h: str) -> str:
        return ("1" if h[0] != "1" else "2") + h[1:]

    case(
        "server seed altered",
        "SHUFFLE_COMMITMENT_MISMATCH",
        "server.seed",
        lambda t: t["server"].__setitem__("seed", flip_hex(t["server"]["seed"])),
    )
    case(
        "server commitment altered",
        "SHUFFLE_COMMITMENT_MISMATCH",
        "server.seed",
        lambda t: t["server"].__setitem__("commitment", flip_hex(t["server"]["commitment"])),
    )
    case(
        "E seed altered",
        "SHUFFLE_COMMITMENT_MISMATCH",
        "seats.E.seed",
        lambda t: t["seats"]["E"].__setitem__("seed", flip_hex(t["seats"]["E"]["seed"])),
    )
    case(
        "S commitment copied to W",
        "SHUFFLE_COMMITMENT_MISMATCH",
        "seats.W.seed",
        lambda t: t["seats"]["W"].update(t["seats"]["S"]),
    )
    case(
        "N and E swap entries",
        "SHUFFLE_COMMITMENT_MISMATCH",
        "seats.N.seed",
        lambda t: t["seats"].update({"N": t["seats"]["E"], "E": t["seats"]["N"]}),
    )
    case(
        "player id changed",
        "SHUFFLE_COMMITMENT_MISMATCH",
        "seats.S.seed",
        lambda t: t["seats"]["S"].__setitem__("player", t["seats"]["S"]["player"] + "x"),
    )
    case(
        "hand number changed",
        "SHUFFLE_COMMITMENT_MISMATCH",
        "server.seed",
        lambda t: t.__setitem__("hand", t["hand"] + 1),
    )
    case(
        "table changed",
        "SHUFFLE_COMMITMENT_MISMATCH",
        "server.seed",
        lambda t: t.__setitem__("table", t["table"] + "x"),
    )
    case(
        "pack changed",
        "SHUFFLE_OUTCOME_MISMATCH",
        "deal_number",
        lambda t: t.__setitem__("pack", 1 - t["pack"]),
    )
    case(
        "dealer changed",
        "SHUFFLE_OUTCOME_MISMATCH",
        "deal_number",
        lambda t: t.__setitem__("dealer", "E" if t["dealer"] != "E" else "S"),
    )
    case(
        "pattern changed",
        "SHUFFLE_OUTCOME_MISMATCH",
        "deal_number",
        lambda t: t.__setitem__("pattern", [6, 7]),
    )
    case(
        "beacon added",
        "SHUFFLE_OUTCOME_MISMATCH",
        "deal_number",
        lambda t: t.__setitem__(
            "beacon", {"source": "drand:test", "round": 1, "randomness": "00" * 32}
        ),
    )
    case(
        "deal number changed",
        "SHUFFLE_OUTCOME_MISMATCH",
        "deal_number",
        lambda t: t.__setitem__("deal_number", str((int(t["deal_number"]) + 1) % DEAL_COUNT)),
    )
    case(
        "cayenne changed",
        "SHUFFLE_OUTCOME_MISMATCH",
        "cayenne",
        lambda t: t.__setitem__("cayenne", "2S" if t["cayenne"] != "2S" else "3S"),
    )
    case(
        "W seed withheld",
        "SHUFFLE_INCOMPLETE",
        "seats.W.seed",
        lambda t: t["seats"]["W"].pop("seed"),
    )
    case(
        "server seed withheld",
        "SHUFFLE_INCOMPLETE",
        "server.seed",
        lambda t: t["server"].pop("seed"),
    )
    case(
        "upper-case hex",
        "SHUFFLE_INVALID",
        "seats.N.seed",
        lambda t: t["seats"]["N"].__setitem__("seed", t["seats"]["N"]["seed"].upper()),
    )
    case(
        "unknown field",
        "SHUFFLE_INVALID",
        "seats.N.sede",
        lambda t: t["seats"]["N"].__setitem__("sede", "00"),
    )
    case(
        "wrong protocol version",
        "SHUFFLE_INVALID",
        "protocol",
        lambda t: t.__setitem__("protocol", "cayenne-shuffle/2"),
    )
    return out


def main() -> None:
    seats1 = {s: (f"player-{s.name}", bytes(range(32 * (s + 1), 32 * (s + 2)))) for s in Seat}
    server1 = bytes(range(32))
    hand1 = first_draw_rejected_hand(server1, seats1)
    v1 = make_transcript("table-1", hand1, Seat.N, PATTERN_445, 0, server1, seats1, None)

    seats2 = {
        Seat.N: ("alice", b"north-seat-seed!"),
        Seat.E: ("bob", bytes.fromhex("ff" * 64)),
        Seat.S: ("carol", "südlicher Sitz, Würfel 3-5-1-6".encode()),
        Seat.W: ("", bytes(16)),
    }
    beacon = Beacon("drand:quicknet", 1234567, bytes.fromhex("a5" * 32))
    v2 = make_transcript("club-7/table-B", 12, Seat.W, PATTERN_67, 1, b"\xff" * 32, seats2, beacon)
    seats3 = {s: (f"p{s.value}", bytes([s.value + 1]) * 32) for s in Seat}
    v3 = make_transcript("x", 2**40, Seat.S, PATTERN_ONE_AT_A_TIME, 1, bytes(32), seats3, None)

    vectors = [
        describe(
            "first-draw-rejected",
            f"hand {hand1} is the first hand number for these seeds whose dealing stream "
            "rejects its first byte (>= 208 for a draw in 0..51)",
            v1,
        ),
        describe("beacon-6-7-dealer-W", "phrase and 64-byte seeds, a beacon, pack 1", v2),
        describe("one-at-a-time-dealer-S", "pattern of thirteen packets of 1, big hand number", v3),
    ]
    for v in vectors:
        assert verify_transcript(v["transcript"]).deal_number == int(v["deal_number"])
    assert vectors[0]["streams"]["dealing"]["rejections"][0]["offset"] == 0

    deal_numbers = []
    for g in (0, 1, DEAL_COUNT // 2, DEAL_COUNT - 1):
        d = deal_from_number(g)
        deal_numbers.append({"number": str(g), "deal": {s.name: cards(d[s]) for s in Seat}})

    doc = {
        "source": "cayenne-fairplay tests/vectors/shuffle/make_vectors.py, protocol "
        "cayenne-shuffle/1 (docs/shuffle-protocol.md)",
        "notes": "Byte strings are lower-case hex. Cards: rank then suit. Stream draws are "
        "the Fisher-Yates j values for i = 51 down to 1; each rejection gives the stream "
        "offset and byte that were thrown away.",
        "sampler_limits": {str(n): LIMIT[n] for n in range(2, 53)},
        "vectors": vectors,
        "deal_numbers": deal_numbers,
        "must_fail": tampered(vectors[0]["transcript"]),
    }
    (HERE / "shuffle_vectors.json").write_text(
        json.dumps(doc, indent=1, ensure_ascii=False) + "\n", encoding="utf-8"
    )
    print(f"wrote {len(vectors)} vectors, {len(doc['must_fail'])} must-fail cases; hand1={hand1}")


if __name__ == "__main__":
    main()
