"""cayenne-tournament-deals/2: golden vectors, must-fail cases, the drand check on the
League of Entropy's published rounds, and version 1 still verifying beside it."""

from __future__ import annotations

import copy
import hashlib
import json
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from audit.rules.cards import CARD_TEXT
from shuffle import tournament as t
from shuffle.beacon import CHAINED, DrandChain, DrandRound, verify_round
from shuffle.errors import BeaconInvalidError, ShuffleError, ShuffleFormatError

HERE = Path(__file__).parents[1] / "vectors" / "shuffle"
V2 = json.loads((HERE / "tournament_vectors_v2.json").read_text())
V1 = json.loads((HERE / "tournament_vectors.json").read_text())
LOE = json.loads((HERE / "drand_league_of_entropy.json").read_text())


def _field(b: bytes) -> bytes:
    return len(b).to_bytes(4, "big") + b


def reference_event_key_v2(doc: dict[str, Any]) -> bytes:
    """Version 2's event key written from docs/shuffle-protocol.md part II alone."""
    revealed = sorted(
        (e["id"].encode(), bytes.fromhex(e["seed"])) for e in doc["entrants"] if "seed" in e
    )
    b = doc["beacon"]
    beacon = b"".join(
        _field(p)
        for p in (
            b"cayenne-tournament/v2/beacon",
            b["scheme"].encode(),
            bytes.fromhex(b["public_key"]),
            b["genesis"].to_bytes(8, "big"),
            b["period"].to_bytes(8, "big"),
            b["round"].to_bytes(8, "big"),
            hashlib.sha256(bytes.fromhex(b["signature"])).digest(),
        )
    )
    parts = [
        b"cayenne-tournament/v2/key",
        doc["event"].encode(),
        bytes(doc["pattern"]),
        doc["reveal_deadline"].to_bytes(8, "big"),
        beacon,
        bytes.fromhex(doc["service"]["seed"]),
        len(revealed).to_bytes(4, "big"),
        *(x for pair in revealed for x in pair),
    ]
    return hashlib.sha256(b"".join(_field(p) for p in parts)).digest()


@pytest.mark.parametrize("vector", V2["vectors"], ids=lambda v: v["name"])
def test_golden_vectors_v2(vector: dict[str, Any]) -> None:
    doc = vector["transcript"]
    assert doc["protocol"] == "cayenne-tournament-deals/2"
    assert reference_event_key_v2(doc).hex() == vector["event_key"]
    boards = t.verify_tournament(doc)
    assert [b.to_json() for b in boards] == doc["deals"]
    for b, want in zip(boards, vector["boards"], strict=True):
        assert [CARD_TEXT[c] for c in b.pack_order] == want["pack_order"]
        assert {s.name: [CARD_TEXT[c] for c in cs] for s, cs in b.deal.items()} == want["deal"]
    # the round is the chain's first published after the deadline
    beacon = doc["beacon"]
    chain = DrandChain(beacon["scheme"], beacon["public_key"], beacon["genesis"], beacon["period"])
    assert chain.round_time(beacon["round"]) > doc["reveal_deadline"]
    assert chain.round_time(beacon["round"] - 1) <= doc["reveal_deadline"]


@pytest.mark.parametrize("case", V2["must_fail"], ids=lambda c: c["name"])
def test_must_fail_cases_v2(case: dict[str, Any]) -> None:
    with pytest.raises(ShuffleError) as info:
        t.verify_tournament(case["transcript"])
    assert (info.value.code, info.value.path) == (case["code"], case["path"])


def test_both_versions_verify_with_one_function() -> None:
    """An event made under version 1 verifies as before, beside version 2's."""
    for vectors in (V1, V2):
        for v in vectors["vectors"]:
            assert [b.to_json() for b in t.verify_tournament(v["transcript"])] == v["transcript"][
                "deals"
            ]
    assert {v["transcript"]["protocol"] for v in V1["vectors"]} == {t.VERSION_1}


def test_the_same_seeds_deal_other_boards_under_another_round() -> None:
    """Nobody knew the boards before the round: another round, other deals."""
    doc = copy.deepcopy(V2["vectors"][0]["transcript"])
    tr = t.tournament_from_json(doc)
    assert tr.drand is not None
    other = t.derive_boards(replace(tr, drand=DrandRound(tr.drand.round, "ab" * 96, "cd" * 96)))
    assert [b.deal_number for b in other] != [b.deal_number for b in t.derive_boards(tr)]


@pytest.mark.parametrize("item", LOE["rounds"], ids=lambda r: r["name"])
def test_league_of_entropy_rounds_verify(item: dict[str, Any]) -> None:
    chain = DrandChain(**item["chain"])
    r = DrandRound(item["round"], item["signature"], item.get("previous_signature"))
    assert verify_round(chain, r).hex() == item["randomness"]
    with pytest.raises(BeaconInvalidError):
        verify_round(chain, DrandRound(item["round"] + 1, r.signature, r.previous_signature))


@pytest.mark.parametrize(
    "signature,previous,path",
    [
        ("zz" * 96, "00" * 96, "beacon.signature"),  # drand-verify would panic on this
        ("AB" * 96, "00" * 96, "beacon.signature"),
        ("ab" * 95, "00" * 96, "beacon.signature"),
        ("ab" * 96, "0g" * 96, "beacon.previous_signature"),
        ("ab" * 96, None, "beacon.previous_signature"),
    ],
)
def test_malformed_rounds_are_format_errors_never_panics(
    signature: str, previous: str | None, path: str
) -> None:
    item = LOE["rounds"][0]
    chain = DrandChain(**item["chain"])
    with pytest.raises(ShuffleFormatError) as info:
        verify_round(chain, DrandRound(item["round"], signature, previous))
    assert info.value.path == path


def test_the_round_after_a_deadline() -> None:
    chain = DrandChain(CHAINED, LOE["rounds"][0]["chain"]["public_key"], 1000, 30)
    assert chain.round_after(999) == 1
    assert chain.round_after(1000) == 2  # round 1 is at the deadline, not after it
    assert chain.round_after(1029) == 2
    assert chain.round_after(1030) == 3
    for when in range(1000, 1200):
        r = chain.round_after(when)
        assert chain.round_time(r) > when >= chain.round_time(r - 1)


@settings(max_examples=40, deadline=None)
@given(
    st.sampled_from(LOE["rounds"]),
    st.integers(min_value=0, max_value=95),
    st.integers(min_value=1, max_value=255),
)
def test_any_flipped_byte_of_a_published_signature_fails(
    item: dict[str, Any], pos: int, flip: int
) -> None:
    """Every scheme (the browser's tests/js/drand.test.mjs flips the same bytes)."""
    chain = DrandChain(**item["chain"])
    sig = bytearray.fromhex(item["signature"])
    sig[pos % len(sig)] ^= flip
    with pytest.raises(BeaconInvalidError):
        verify_round(chain, DrandRound(item["round"], sig.hex(), item.get("previous_signature")))


def _paths(obj: Any, path: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    if isinstance(obj, dict):
        return [path] + [p for k, v in obj.items() for p in _paths(v, (*path, k))]
    if isinstance(obj, list):
        return [path] + [p for i, v in enumerate(obj) for p in _paths(v, (*path, i))]
    return [path]


_VALUES = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(2**70), max_value=2**70),
    st.text(max_size=200),
    st.sampled_from(["zz" * 48, "AB" * 96, "00" * 96, "ab" * 48]),
    st.lists(st.integers(), max_size=3),
    st.dictionaries(st.text(max_size=5), st.integers(), max_size=2),
)


@settings(max_examples=300, deadline=None)
@given(st.data())
def test_any_changed_field_of_a_v2_transcript_fails_as_a_shuffle_error(data: Any) -> None:
    """Hostile transcripts: one field replaced by anything gives a ShuffleError (never a
    crash, nor a panic of the BLS library). The withdrawn entrant's id and commitment are
    left out: by II.1 nothing of a withdrawn entrant enters the derivation."""
    doc = copy.deepcopy(V2["vectors"][0]["transcript"])
    assert "seed" not in doc["entrants"][2]
    paths = [p for p in _paths(doc)[1:] if p[:2] != ("entrants", 2)]
    path = data.draw(st.sampled_from(paths))
    value = data.draw(_VALUES)
    target = doc
    for key in path[:-1]:
        target = target[key]
    if target[path[-1]] == value and type(target[path[-1]]) is type(value):
        return
    target[path[-1]] = value
    try:
        t.verify_tournament(doc)
    except ShuffleError:
        return
    raise AssertionError(f"{path} = {value!r} verified")


@pytest.mark.parametrize("number", ["²", "٣", "1²"])
def test_a_deal_number_of_digits_outside_ascii_is_a_format_error(number: str) -> None:
    """``str.isdigit`` accepts '²' and '٣', which ``int`` refuses: found by the property
    above, it was a raw ValueError instead of the field's error."""
    doc = copy.deepcopy(V2["vectors"][0]["transcript"])
    doc["deals"][2]["deal_number"] = number
    with pytest.raises(ShuffleFormatError) as info:
        t.verify_tournament(doc)
    assert info.value.path == "deals[2].deal_number"
