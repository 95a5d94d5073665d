from __future__ import annotations

from audit.auditor import audit_document

from ..helpers import record, sorted_deal, worked_example
from .common import codes, findings


def test_a_clean_record_has_no_findings() -> None:
    report = audit_document(worked_example())
    assert report["verdict"] == "clean" and report["findings"] == []


def revoke_hand() -> dict[str, object]:
    # N: spades 3-A and 2D; E: hearts; S: diamonds 3-A and 2S; W: clubs. N calls spades.
    deal = sorted_deal()
    deal["N"][0], deal["S"][0] = "2D", "2S"
    ranks = "23456789TJQKA"
    tricks = [
        {"leader": "E", "cards": ["2H", "3D", "2C", "3S"]},
        {"leader": "N", "cards": ["4S", "3H", "4D", "3C"]},
    ]  # S revokes: holds 2S
    tricks.append({"leader": "N", "cards": ["5S", "4H", "2S", "4C"]})
    for i in range(9):
        tricks.append(
            {
                "leader": "N",
                "cards": [
                    ranks[4 + i] + "S",
                    ranks[3 + i] + "H",
                    ranks[3 + i] + "D",
                    ranks[3 + i] + "C",
                ],
            }
        )
    tricks.append({"leader": "N", "cards": ["2D", "AH", "AD", "AC"]})
    return {
        "dealer": "W",
        "deal": deal,
        "cayenne": "7S",
        "calls": [{"seat": "W", "call": "pass"}, {"seat": "E", "call": "S"}],
        "tricks": tricks,
    }


def test_revoke_finding_carries_the_card_still_held() -> None:
    hand = revoke_hand()
    hand["calls"] = [{"seat": "W", "call": "S"}]
    doc = record(hand)
    (f,) = findings(doc, "REVOKE")
    assert (f["hand"], f["trick"], f["seat"]) == (1, 2, "S")
    assert f["evidence"] == {"led": "S", "played": "4D", "held": ["2S"]}
    assert f["message"] == "hand 1: S played 4D on a spade lead to trick 2 while holding 2S"
    report = audit_document(doc)
    assert report["verdict"] == "irregular" and report["hands"][0]["tricks"] == {"NS": 13, "EW": 0}
    # the revoke penalty (tricks, by default) and no slam for the revoking side
    assert report["hands"][0]["score"]["bonuses"] == []


def test_penalty_without_a_revoke_is_a_warning() -> None:
    doc = worked_example()
    doc["hands"][0]["penalties"] = [{"trick": 4, "seat": "E", "option": "add"}]
    found = findings(doc, "PENALTY_WITHOUT_REVOKE")
    assert len(found) == 1 and found[0]["severity"] == "warning" and found[0]["trick"] == 4
    report = audit_document(doc)
    assert report["verdict"] == "clean"  # warnings alone do not make a record irregular


def test_lead_and_call_out_of_turn_are_reported_with_hand_and_seat() -> None:
    doc = worked_example()
    doc["hands"][0]["calls"] = [{"seat": "S", "call": "H"}]
    found = findings(doc, "CALL_OUT_OF_TURN")
    assert found[0]["hand"] == 1 and found[0]["seat"] == "S"
    assert "CALL_OUT_OF_TURN" in codes(doc)


def test_a_hand_that_cannot_be_replayed_does_not_stop_the_audit() -> None:
    doc = worked_example()
    doc["hands"][1]["tricks"][4]["cards"].pop()
    report = audit_document(doc)
    (f,) = [f for f in report["findings"] if f["code"] == "HAND_NOT_REPLAYABLE"]
    assert f["hand"] == 2 and f["trick"] == 5
    assert report["hands"][1]["tricks"] is None and report["hands"][1]["score"] is None
    assert report["hands"][2]["tricks"] == {"NS": 12, "EW": 1}
