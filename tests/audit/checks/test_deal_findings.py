from __future__ import annotations

from ..helpers import worked_example
from .common import clean_record, codes, findings


def test_misdeal_names_the_first_misplaced_card() -> None:
    doc = clean_record(2)
    order = doc["hands"][1]["dealt_order"]
    order[0], order[5] = order[5], order[0]  # first packet to E: card 1 swapped with card 6 (S's)
    (f,) = findings(doc, "MISDEAL")
    assert f["hand"] == 2 and f["evidence"]["misplaced"][0]["position"] == 1
    assert len(f["evidence"]["misplaced"]) == 2


def test_dealt_order_that_is_not_a_pack() -> None:
    doc = clean_record(1)
    doc["hands"][0]["dealt_order"] = doc["hands"][0]["dealt_order"][:50]
    assert codes(doc) == ["MISDEAL"]


def test_deal_patterns_come_from_the_ruleset() -> None:
    from audit.rules.ruleset import Ruleset

    doc = clean_record(3, ruleset=Ruleset(deal_pattern=(6, 7)))
    assert codes(doc) == []
    doc["ruleset"]["deal_pattern"] = [4, 4, 5]
    assert set(codes(doc)) == {"MISDEAL"}


def test_deal_invalid() -> None:
    doc = worked_example()
    doc["hands"][0]["deal"]["N"].pop()
    assert "DEAL_INVALID" in codes(doc)
