"""Records as clubs keep them: a voided deal dealt again, a revoke corrected in time,
the players the shuffle transcripts name, and a record without a hand."""

from __future__ import annotations

import copy
import json
import random
from typing import Any

import pytest

from audit import native
from audit.auditor import audit_document, audit_record
from audit.cli import main
from audit.errors import RecordError
from audit.record.codec import dumps, load_record, record_to_json, schema
from audit.record.generate import cut, play_hand, random_record
from audit.report.html import render_html
from audit.report.text import render_text
from audit.rules.cards import SUIT_OF, Seat, parse_card

from .helpers import worked_example


def python_report(doc: dict[str, Any]) -> dict[str, Any]:
    return audit_record(load_record(doc))


def with_redeal(doc: dict[str, Any], index: int, **void: Any) -> dict[str, Any]:
    """``doc`` with a misdeal by the dealer of hand ``index`` put before it (its deal as
    far as it went: E had fourteen cards), the same dealer then dealing again."""
    out = copy.deepcopy(doc)
    h = out["hands"][index]
    deal = copy.deepcopy(h["deal"])
    deal["E"].append(deal["W"].pop())
    voided = {
        "dealer": h["dealer"],
        "void": {"reason": "misdeal", **void},
        "deal": deal,
    }
    out["hands"].insert(index, voided)
    return out


def test_a_redeal_by_the_same_dealer_after_a_misdeal_is_clean() -> None:
    doc = with_redeal(worked_example(), 1, note="E was dealt fourteen cards")
    report = audit_document(doc)
    assert report["verdict"] == "clean", report["findings"]
    assert [h["hand"] for h in report["hands"]] == [1, 2, 3, 4]
    voided = report["hands"][1]
    assert voided["void"] == {"reason": "misdeal", "note": "E was dealt fourteen cards"}
    assert voided["score"] is None and voided["contract"] is None
    # the score runs on across the void: the rubber is the worked example's
    assert report["rubbers"] == audit_document(worked_example())["rubbers"]
    assert json.dumps(report) == json.dumps(python_report(doc))


def test_a_redeal_by_the_next_player_is_a_wrong_dealer() -> None:
    doc = with_redeal(worked_example(), 1)
    doc["hands"][2]["dealer"] = Seat.parse(doc["hands"][1]["dealer"]).left.name
    report = audit_document(doc)
    wrong = [f for f in report["findings"] if f["code"] == "WRONG_DEALER"]
    assert wrong and wrong[0]["hand"] == 3
    assert "same dealer deals again" in wrong[0]["message"]


def test_a_voided_deal_needs_only_its_dealer_and_reason_and_reads_back() -> None:
    doc = worked_example()
    doc["hands"].insert(1, {"dealer": doc["hands"][1]["dealer"], "void": {"reason": "new_deal"}})
    record = load_record(doc)
    assert record.hands[1].void is not None and record.hands[1].cayenne is None
    assert record_to_json(load_record(json.loads(dumps(record)))) == record_to_json(record)
    assert audit_document(doc)["verdict"] == "clean"
    bad = copy.deepcopy(doc)
    bad["hands"][1]["void"]["reason"] = "bored"
    with pytest.raises(RecordError, match=r"hands\[1\]\.void\.reason: 'bored' is not a reason"):
        load_record(bad)
    del bad["hands"][1]["void"]
    with pytest.raises(RecordError, match=r"hands\[1\]\.deal: is required"):
        load_record(bad)


def test_the_voided_deal_is_tested_for_stacking() -> None:
    """A cheat who misdeals on purpose deals a stacked pack; the redeal is honest."""
    rng = random.Random(11)
    doc = random_record(rng, 3, prepare=cut, claimed=False)  # hand 3: pack 0 cut only
    stacked = doc["hands"][2]
    voided = {k: stacked[k] for k in ("dealer", "pack", "deal", "dealt_order", "cayenne")}
    voided["void"] = {"reason": "misdeal"}
    state, order = play_hand(rng, Seat.parse(stacked["dealer"]))
    redeal = state.to_record_hand()
    redeal["pack"] = stacked["pack"]
    doc["hands"][2:] = [voided, redeal]
    report = audit_document(doc)
    codes = {(f["code"], f["hand"]) for f in report["findings"]}
    assert ("STACKED_DEAL", 3) in codes, report["findings"]
    assert not any(c == "WRONG_DEALER" for c, _ in codes)
    assert report["hands"][2]["stacking"]["reference_hand"] == 1
    assert report["hands"][3]["stacking"]["reference_hand"] == 1


def _correctable(doc: dict[str, Any]) -> tuple[int, int, str, str]:
    """(hand index, trick index, seat, card): a follower who followed suit but held a card
    of another suit then, which he could have played (and taken back)."""
    h = doc["hands"][0]
    held = {s: {parse_card(c) for c in h["deal"][s]} for s in "NESW"}
    for t, trick in enumerate(h["tricks"]):
        seat = Seat.parse(trick["leader"])
        led = SUIT_OF[parse_card(trick["cards"][0])]
        for k, text in enumerate(trick["cards"]):
            card = parse_card(text)
            other = sorted(c for c in held[seat.name] if SUIT_OF[c] != led)
            if k and SUIT_OF[card] == led and other:
                from audit.rules.cards import CARD_TEXT

                return 0, t, seat.name, CARD_TEXT[other[0]]
            held[seat.name].discard(card)
            seat = seat.left
    raise AssertionError("no trick to correct")


def test_a_revoke_corrected_in_time_is_no_revoke_and_is_reported_as_information() -> None:
    doc = worked_example()
    hi, ti, seat, card = _correctable(doc)
    doc["hands"][hi]["tricks"][ti]["corrected"] = [{"seat": seat, "card": card}]
    report = audit_document(doc)
    assert report["verdict"] == "clean"
    [f] = report["findings"]
    assert (f["code"], f["severity"], f["trick"], f["seat"]) == (
        "REVOKE_CORRECTED",
        "info",
        ti + 1,
        seat,
    )
    assert report["hands"][0]["score"] == audit_document(worked_example())["hands"][0]["score"]
    assert "took back" in render_html(report, doc)
    assert "REVOKE_CORRECTED" in render_text(report)
    record = load_record(doc)
    assert record_to_json(load_record(json.loads(dumps(record))))["hands"][0]["tricks"][ti][
        "corrected"
    ] == [{"seat": seat, "card": card}]


def test_a_correction_the_cards_cannot_show_is_a_warning() -> None:
    doc = worked_example()
    trick = doc["hands"][0]["tricks"][0]
    follower = Seat.parse(trick["leader"]).left.name
    trick["corrected"] = [{"seat": follower, "card": trick["cards"][0]}]  # the leader's card
    report = audit_document(doc)
    [f] = report["findings"]
    assert f["code"] == "CORRECTION_INVALID" and f["severity"] == "warning"
    assert "did not hold" in f["message"]


@pytest.mark.skipif(not native.available(), reason="the native fast path is not built")
def test_the_native_path_declines_voids_and_corrections() -> None:
    assert native.audit_fast(worked_example(), 0.001) is not None
    assert native.audit_fast(with_redeal(worked_example(), 1), 0.001) is None
    doc = worked_example()
    hi, ti, seat, card = _correctable(doc)
    doc["hands"][hi]["tricks"][ti]["corrected"] = [{"seat": seat, "card": card}]
    assert native.audit_fast(doc, 0.001) is None


def test_void_hands_render_in_text_and_html() -> None:
    doc = with_redeal(worked_example(), 1, note="E had 14 cards")
    report = audit_document(doc)
    text = render_text(report, players=doc["players"])
    assert "void (misdeal): E had 14 cards; the same dealer deals again" in text
    html = render_html(report, doc)
    assert 'data-role="void"' in html and "E had 14 cards" in html


def test_players_and_transcript_identities_must_agree() -> None:
    from shuffle.ceremony import Ceremony
    from shuffle.protocol import SEAT_ORDER

    players = {s: f"p-{s.name}" for s in SEAT_ORDER}
    c = Ceremony("t1", 1, Seat.N, players)
    for s in SEAT_ORDER:
        c.commit_seed(s, bytes([s + 1]) * 16)
    for s in SEAT_ORDER:
        c.reveal(s, bytes([s + 1]) * 16)
    derived = c.deal()
    from audit.rules.cards import CARD_TEXT

    state, _order = play_hand(random.Random(1), Seat.N, order=list(derived.pack_order))
    hand = state.to_record_hand()
    hand["pack"] = 0
    hand["shuffle"] = c.finish().to_json()
    hand["cayenne"] = CARD_TEXT[derived.cayenne]  # turned from the still pack
    doc = {
        "format": "cayenne-record/1",
        "players": {s.name: f"p-{s.name}" for s in SEAT_ORDER},
        "hands": [hand],
    }
    assert audit_document(doc)["verdict"] == "clean"
    doc["players"]["E"] = "someone-else"
    report = audit_document(doc)
    [f] = report["findings"]
    assert f["code"] == "SHUFFLE_MISMATCH" and f["seat"] == "E"
    assert f["evidence"]["path"] == "seats.E.player" and "someone-else" in f["message"]


def test_an_empty_record_is_refused_with_exit_2(
    tmp_path: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    doc = {"format": "cayenne-record/1", "hands": []}
    with pytest.raises(RecordError, match="holds no hand"):
        audit_document(doc)
    path = tmp_path / "empty.json"
    path.write_text(json.dumps(doc))
    assert main(["audit", str(path)]) == 2
    assert "hands: the record holds no hand" in capsys.readouterr().err


def test_the_schema_says_which_way_up_gathered_is() -> None:
    gathered = schema()["definitions"]["hand"]["properties"]["gathered"]["description"]
    assert "first stacked first" in gathered and "bottom" in gathered
