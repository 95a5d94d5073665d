"""The tournament fields of cayenne-record/1: ``round`` (record) and ``board`` (hand).

They are read, written back, validated by the schema and the fast loader alike, and
carried by the native fast path (byte-identical to the Python auditor). Within a
duplicate record the dealer does not rotate and the packs need not alternate.
"""

from __future__ import annotations

import copy
import json
import random
from typing import Any

import pytest

from audit import native
from audit.auditor import audit_document, audit_record
from audit.errors import RecordError
from audit.record.codec import _load_checked, dumps, load_record, validate
from audit.record.fastload import fast_load
from audit.record.generate import random_record

from ..tournament.events import mitchell_event


def duplicate_record() -> dict[str, Any]:
    """Table 1's record of round 1 of a generated Mitchell (boards 1 to 3, dealers N, E,
    S), with board 1 played again at the end: its dealer N follows S, as a board's
    dealer dictates."""
    records = mitchell_event(random.Random(4), tables=3, rounds=1, boards_per_round=3)
    doc = records[0]
    doc["hands"].append(copy.deepcopy(doc["hands"][0]))  # board 1 again: dealer N after S
    return doc


def test_round_and_board_are_read_and_written_back() -> None:
    doc = duplicate_record()
    record = load_record(doc)
    assert record.meta["round"] == 1 and record.meta["table"] == "1"
    assert [h.board for h in record.hands] == [1, 2, 3, 1]
    assert json.loads(dumps(record)) == json.loads(dumps(load_record(json.loads(dumps(record)))))
    back = json.loads(dumps(record))
    assert back["round"] == 1 and [h["board"] for h in back["hands"]] == [1, 2, 3, 1]
    assert list(back["hands"][0])[:2] == ["dealer", "board"]
    # the fast loader and the schema path agree
    assert fast_load(doc) == _load_checked(doc)


@pytest.mark.parametrize(
    ("where", "value", "message"),
    [
        ("round", 0, "round: 0 is out of range"),
        ("round", "2", "round: '2' is not an integer"),
        ("board", 0, "hands[0].board: 0 is out of range"),
        ("board", 1.5, "hands[0].board: 1.5 is not an integer"),
    ],
)
def test_bad_round_or_board_is_rejected_with_its_path(where: str, value: Any, message: str) -> None:
    doc = duplicate_record()
    if where == "round":
        doc["round"] = value
    else:
        doc["hands"][0]["board"] = value
    assert fast_load(doc) is None
    with pytest.raises(RecordError) as err:
        validate(doc)
    assert message in str(err.value)


def codes(doc: dict[str, Any]) -> list[str]:
    return [f["code"] for f in audit_record(load_record(doc))["findings"]]


def test_the_dealer_does_not_rotate_within_a_duplicate_record() -> None:
    doc = duplicate_record()
    dealers = [h["dealer"] for h in doc["hands"]]
    assert dealers == ["N", "E", "S", "N"]
    doc["hands"][1]["pack"] = doc["hands"][0]["pack"]  # packs need not alternate either
    assert codes(doc) == []
    report = audit_document(doc)
    assert report["verdict"] == "clean"
    assert [h["board"] for h in report["hands"]] == [1, 2, 3, 1]
    assert all("stacking" not in h for h in report["hands"])
    # without `board` the same record is out of order
    for h in doc["hands"]:
        del h["board"]
    assert "WRONG_DEALER" in codes(doc) and "PACK_NOT_ALTERNATED" in codes(doc)


def test_a_board_hand_is_neither_tested_for_stacking_nor_a_reference() -> None:
    doc = random_record(random.Random(3), 6)
    plain = audit_record(load_record(doc))
    assert any("stacking" in h for h in plain["hands"])
    for h in doc["hands"]:
        h["board"] = 1
    boards = audit_record(load_record(doc))
    assert all("stacking" not in h for h in boards["hands"])


@pytest.mark.skipif(not native.available(), reason="the native fast path is not built")
def test_native_fast_path_carries_board_byte_for_byte() -> None:
    doc = duplicate_record()
    doc["hands"][1]["pack"] = doc["hands"][0]["pack"]
    fast = native.audit_fast(doc, 0.001)
    assert fast is not None, "a duplicate record in order must take the fast path"
    assert json.dumps(fast) == json.dumps(audit_record(load_record(doc), alpha=0.001))
    # a board hand in a rubber record, and a rubber hand after a board: still identical
    mixed = random_record(random.Random(8), 6)
    mixed["hands"][2]["board"] = 7
    mixed["round"] = 3
    fast = native.audit_fast(mixed, 0.001)
    assert fast is not None
    assert json.dumps(fast) == json.dumps(audit_record(load_record(mixed), alpha=0.001))
    bad = copy.deepcopy(doc)
    bad["hands"][0]["board"] = 2**70  # beyond the native reader: it declines
    assert native.audit_fast(bad, 0.001) is None
