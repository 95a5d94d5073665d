from __future__ import annotations

from ..helpers import worked_example
from .common import codes, findings


def test_the_deal_passes_to_the_left() -> None:
    doc = worked_example()
    doc["hands"][2]["dealer"] = "W"
    (f,) = findings(doc, "WRONG_DEALER")
    assert f["hand"] == 3 and f["evidence"]["expected"] == "S"


def test_the_lowest_cut_deals_first_ace_low() -> None:
    doc = worked_example()
    doc["cut"] = {"N": "5S", "E": "AH", "S": "9D", "W": "KC"}
    (f,) = findings(doc, "WRONG_DEALER")
    assert f["hand"] == 1 and f["evidence"]["expected"] == "E"
    doc["cut"] = {"N": "2S", "E": "5H", "S": "9D", "W": "KC"}
    assert "WRONG_DEALER" not in codes(doc)


def test_packs_alternate() -> None:
    doc = worked_example()
    doc["hands"][1]["pack"] = 0
    found = findings(doc, "PACK_NOT_ALTERNATED")
    assert [f["hand"] for f in found] == [2, 3] and found[0]["severity"] == "warning"


def test_independent_deals_are_not_held_to_rotation() -> None:
    doc = worked_example()
    doc["hands"][2]["dealer"] = "W"
    doc["independent_deals"] = True
    assert "WRONG_DEALER" not in codes(doc)
