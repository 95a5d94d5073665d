"""cayenne-tournament-deals/1: golden vectors, must-fail cases, and the withdrawal rule."""

from __future__ import annotations

import copy
import hashlib
import hmac
import json
from pathlib import Path
from typing import Any

import pytest

from audit.rules.cards import CARD_TEXT
from shuffle import tournament as t
from shuffle.errors import ShuffleError

VECTORS = json.loads(
    (Path(__file__).parents[1] / "vectors" / "shuffle" / "tournament_vectors.json").read_text()
)


def _field(b: bytes) -> bytes:
    return len(b).to_bytes(4, "big") + b


def reference_event_key(doc: dict[str, Any]) -> bytes:
    """The event key written from docs/shuffle-protocol.md part II alone."""
    revealed = sorted(
        (e["id"].encode(), bytes.fromhex(e["seed"])) for e in doc["entrants"] if "seed" in e
    )
    beacon = b""
    if "beacon" in doc:
        b = doc["beacon"]
        beacon = (
            _field(b"cayenne-tournament/v1/beacon")
            + _field(b["source"].encode())
            + _field(b["round"].to_bytes(8, "big"))
            + _field(bytes.fromhex(b["randomness"]))
        )
    parts = [
        b"cayenne-tournament/v1/key",
        doc["event"].encode(),
        bytes(doc["pattern"]),
        beacon,
        bytes.fromhex(doc["service"]["seed"]),
        len(revealed).to_bytes(4, "big"),
        *(x for pair in revealed for x in pair),
    ]
    return hashlib.sha256(b"".join(_field(p) for p in parts)).digest()


@pytest.mark.parametrize("vector", VECTORS["vectors"], ids=lambda v: v["name"])
def test_golden_vectors(vector: dict[str, Any]) -> None:
    doc = vector["transcript"]
    key = reference_event_key(doc)
    assert key.hex() == vector["event_key"]
    boards = t.verify_tournament(doc)
    assert [b.to_json() for b in boards] == doc["deals"]
    for b, want in zip(boards, vector["boards"], strict=True):
        bk = hmac.new(
            key,
            _field(b"cayenne-tournament/v1/board") + _field(b.board.to_bytes(8, "big")),
            hashlib.sha256,
        ).digest()
        assert bk.hex() == want["board_key"]
        assert [CARD_TEXT[c] for c in b.pack_order] == want["pack_order"]
        assert {s.name: [CARD_TEXT[c] for c in cs] for s, cs in b.deal.items()} == want["deal"]
        assert b.dealer.name == "NESW"[(b.board - 1) % 4] and b.pack == (b.board - 1) % 2


@pytest.mark.parametrize("case", VECTORS["must_fail"], ids=lambda c: c["name"])
def test_must_fail(case: dict[str, Any]) -> None:
    with pytest.raises(ShuffleError) as err:
        t.verify_tournament(case["transcript"])
    assert (err.value.code, err.value.path) == (case["code"], case["path"])


def test_a_withdrawn_entrant_does_not_enter_the_derivation() -> None:
    doc = copy.deepcopy(VECTORS["vectors"][0]["transcript"])
    withdrawn = [e for e in doc["entrants"] if "seed" not in e]
    assert [e["id"] for e in withdrawn] == ["cy"]
    boards = t.verify_tournament(doc)
    # whatever he had committed to, and in whatever order the entrants are listed
    withdrawn[0]["commitment"] = "ab" * 32
    doc["entrants"].reverse()
    assert t.verify_tournament(doc) == boards
    # dropping him from the list altogether changes nothing either
    doc["entrants"] = [e for e in doc["entrants"] if "seed" in e]
    assert t.verify_tournament(doc) == boards


def test_the_published_transcript_round_trips() -> None:
    doc = VECTORS["vectors"][1]["transcript"]
    assert t.tournament_from_json(doc).to_json() == doc
