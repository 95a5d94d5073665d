"""The golden vectors: the package and an independent verifier both reproduce them."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from audit.rules.cards import CARD_TEXT, Seat, parse_card
from shuffle import kdf
from shuffle.dealnumber import deal_from_number, deal_number
from shuffle.errors import ShuffleError
from shuffle.permute import shuffle_pack_traced
from shuffle.protocol import SEAT_ORDER, Transcript, derive, derive_key
from shuffle.sampler import LIMIT, block
from shuffle.verify import verify_transcript

from . import reference

VECTORS_PATH = Path(__file__).resolve().parents[1] / "vectors" / "shuffle" / "shuffle_vectors.json"
DOC = json.loads(VECTORS_PATH.read_text(encoding="utf-8"))
VECTORS: list[dict[str, Any]] = DOC["vectors"]


def names(cs: list[int]) -> list[str]:
    return [CARD_TEXT[c] for c in cs]


@pytest.mark.parametrize("v", VECTORS, ids=[v["name"] for v in VECTORS])
def test_package_reproduces_every_intermediate_value(v: dict[str, Any]) -> None:
    inp = v["inputs"]
    table, hand = inp["table"], inp["hand"]
    server_seed = bytes.fromhex(inp["server_seed"])
    assert kdf.server_commitment(server_seed, table, hand).hex() == v["server_commitment"]
    assert kdf.sha256(bytes.fromhex(v["server_commitment_input"])).hex() == v["server_commitment"]
    for seat in SEAT_ORDER:
        e = inp["seats"][seat.name]
        got = kdf.seat_commitment(bytes.fromhex(e["seed"]), seat, e["player"], table, hand)
        assert got.hex() == v["seat_commitments"][seat.name]

    t = Transcript.from_json(v["transcript"])
    key = derive_key(t)
    assert key.hex() == v["key"]
    assert kdf.sha256(bytes.fromhex(v["key_input"])) == key
    for sname, label in (("dealing", kdf.LABEL_DEALING), ("still", kdf.LABEL_STILL)):
        s = v["streams"][sname]
        assert s["label"] == label.decode()
        assert [block(key, label, i).hex() for i in range(2)] == s["first_blocks"]
        pack, draws, nblocks = shuffle_pack_traced(key, label)
        assert [d.value for d in draws] == s["draws"]
        assert names(pack) == s["order"]
        assert nblocks == s["blocks_used"]
        rejected = [(off, b) for d in draws for off, b in d.consumed[:-1]]
        assert rejected == [(r["offset"], r["byte"]) for r in s["rejections"]]

    d = derive(t)
    assert names(d.pack_order) == v["pack_order"] == v["streams"]["dealing"]["order"]
    assert CARD_TEXT[d.cayenne] == v["cayenne"] == v["streams"]["still"]["order"][0]
    assert {s.name: names(d.deal[s]) for s in Seat} == v["deal"]
    assert str(d.deal_number) == v["deal_number"]
    assert t.to_json() == v["transcript"]
    assert verify_transcript(v["transcript"]).deal_number == d.deal_number


@pytest.mark.parametrize("v", VECTORS, ids=[v["name"] for v in VECTORS])
def test_independent_verifier_agrees(v: dict[str, Any]) -> None:
    out = reference.verify(v["transcript"])
    assert out["key"] == v["key"]
    assert out["pack_order"] == v["pack_order"]
    assert out["still_order"] == v["streams"]["still"]["order"]
    assert out["deal"] == v["deal"]
    assert out["cayenne"] == v["cayenne"]
    assert reference.key_input(v["transcript"]).hex() == v["key_input"]


def test_a_vector_rejects_the_very_first_byte() -> None:
    first = VECTORS[0]["streams"]["dealing"]
    r = first["rejections"][0]
    assert r["offset"] == 0 and r["n"] == 52 and r["byte"] >= r["limit"] == 208
    # The first accepted byte is therefore the second byte of block 0.
    block0 = bytes.fromhex(first["first_blocks"][0])
    assert block0[0] == r["byte"]
    assert first["draws"][0] == next(b for b in block0 if b < 208) % 52


def test_every_vector_rejects_somewhere_and_draws_are_in_range() -> None:
    for v in VECTORS:
        for s in v["streams"].values():
            assert s["rejections"], v["name"]
            for r in s["rejections"]:
                assert r["byte"] >= LIMIT[r["n"]] == r["limit"]
            assert all(0 <= j <= i for j, i in zip(s["draws"], range(51, 0, -1), strict=True))


def test_sampler_limits_published() -> None:
    assert DOC["sampler_limits"] == {str(n): 256 - 256 % n for n in range(2, 53)}


@pytest.mark.parametrize("entry", DOC["deal_numbers"], ids=lambda e: e["number"][:12])
def test_deal_number_vectors(entry: dict[str, Any]) -> None:
    g = int(entry["number"])
    deal = {Seat[s]: [parse_card(c) for c in cs] for s, cs in entry["deal"].items()}
    assert deal_number(deal) == g
    assert {s.name: names(h) for s, h in deal_from_number(g).items()} == entry["deal"]
    bd = reference.big_deal_code_to_hand(g)
    for s, cs in entry["deal"].items():
        assert bd[s] == {reference.big_deal_index(parse_card(c)) for c in cs}


@pytest.mark.parametrize("case", DOC["must_fail"], ids=[c["name"] for c in DOC["must_fail"]])
def test_must_fail_vectors(case: dict[str, Any]) -> None:
    with pytest.raises(ShuffleError) as info:
        verify_transcript(case["transcript"])
    assert info.value.code == case["code"]
    assert info.value.path == case["path"]
    assert case["path"] in info.value.message
