"""STACKED_DEAL and STACKED_DEALER through the auditor, on simulated sittings."""

from __future__ import annotations

import random

from audit.auditor import audit_document
from audit.record.generate import cut, random_record


def test_a_pack_only_cut_is_reported_as_stacked() -> None:
    doc = random_record(random.Random(5), 10, prepare=cut)
    report = audit_document(doc)
    stacked = [f for f in report["findings"] if f["code"] == "STACKED_DEAL"]
    assert [f["hand"] for f in stacked] == list(range(3, 11))
    assert stacked[0]["evidence"]["reference_hand"] == 1 and stacked[0]["seat"] == "S"
    assert all(h["stacking"]["p_value"] < 0.001 for h in report["hands"][2:])
    (dealer,) = [
        f for f in report["findings"] if f["code"] == "STACKED_DEALER" and "Sam" in f["message"]
    ]
    assert dealer["evidence"]["hands"] == [3, 7] and dealer["hand"] is None


def test_a_pack_only_cut_is_found_from_the_hands_alone() -> None:
    doc = random_record(random.Random(6), 4, prepare=cut, dealt_order=False)
    report = audit_document(doc)
    assert [f["hand"] for f in report["findings"] if f["code"] == "STACKED_DEAL"] == [3, 4]
    assert report["hands"][2]["stacking"]["method"] == "hands"


def test_honest_shuffles_are_not_reported() -> None:
    doc = random_record(random.Random(7), 12)
    report = audit_document(doc)
    assert [f for f in report["findings"] if f["code"].startswith("STACKED")] == []
    assert "stacking" not in report["hands"][0] and "stacking" not in report["hands"][1]
    assert all("stacking" in h for h in report["hands"][2:])


def test_no_test_without_the_gathering() -> None:
    doc = random_record(random.Random(8), 4, prepare=cut, gathered=False)
    report = audit_document(doc)
    assert all("stacking" not in h for h in report["hands"])


def test_independent_deals_are_not_tested() -> None:
    doc = random_record(random.Random(9), 4, prepare=cut)
    doc["independent_deals"] = True
    assert all("stacking" not in h for h in audit_document(doc)["hands"])
