"""A claim of the remaining tricks: the rules engine's claim and answers, the record's
``claim`` field and the auditor's reading of a claimed hand (docs/record-format.md,
"A claim of the remaining tricks")."""

from __future__ import annotations

import copy
import random
from typing import Any

import pytest

from audit.auditor import audit_document
from audit.errors import IllegalActionError
from audit.rules.cards import Seat, parse_card
from audit.rules.deal import deal_from_order
from audit.rules.play import HandState


def _hand(seed: int = 5) -> HandState:
    order = list(range(52))
    random.Random(seed).shuffle(order)
    state = HandState(deal_from_order(order, Seat.N), Seat.N, parse_card("7H"))
    state.call(Seat.N, "S")
    return state


def _play_tricks(state: HandState, n: int) -> None:
    while state.tricks_played < n:
        seat = state.to_act
        assert seat is not None
        state.play(seat, state.legal_plays(seat)[0])


def _record(state: HandState) -> dict[str, Any]:
    return {
        "format": "cayenne-record/1",
        "players": {"N": "Nell", "E": "Eli", "S": "Sam", "W": "Wyn"},
        "hands": [state.to_record_hand()],
    }


def test_a_claim_accepted_by_both_adversaries_ends_the_hand_with_the_tricks_claimed() -> None:
    state = _hand()
    _play_tricks(state, 9)
    won = list(state.won)
    pending = state.claim_tricks(Seat.S, 3)
    assert pending.left == 4 and pending.adversaries == (Seat.W, Seat.E)
    to_act = state.to_act
    assert to_act is not None and state.legal_plays(to_act) == []
    with pytest.raises(IllegalActionError) as info:
        state.play(to_act, state.hand(to_act)[0])
    assert info.value.rule == "claim_pending"
    with pytest.raises(IllegalActionError):
        state.answer_claim(Seat.N, True)  # the claimer's partner does not answer
    state.answer_claim(Seat.E, True)
    assert state.phase == "playing" and state.public_state()["claim"]["waiting_for"] == ["W"]
    state.answer_claim(Seat.W, True)
    assert state.is_over and state.to_act is None
    assert state.won == [won[0] + 3, won[1] + 1]
    hand = state.to_record_hand()
    assert hand["claim"] == {"claimer": "S", "tricks": 3, "agreed": ["E", "W"]}
    assert len(hand["tricks"]) == 9 and "gathered" not in hand

    report = audit_document(_record(state))
    assert report["verdict"] == "clean", report["findings"]
    entry = report["hands"][0]
    assert entry["tricks"] == {"NS": won[0] + 3, "EW": won[1] + 1}
    assert entry["claim"] == hand["claim"]
    assert entry["score"] is not None


def test_a_refused_claim_withdraws_it_and_the_play_goes_on() -> None:
    state = _hand()
    _play_tricks(state, 5)
    state.claim_tricks(Seat.E, 8)
    state.answer_claim(Seat.S, False)
    assert state.pending_claim is None and state.phase == "playing"
    assert state.refused == [
        {"claimer": "E", "tricks": 8, "left": 8, "played": 5, "refused_by": "S"}
    ]
    with pytest.raises(IllegalActionError):
        state.claim_tricks(Seat.E, 7)  # not again before a trick is played
    _play_tricks(state, 13)
    assert state.is_over and "claim" not in state.to_record_hand()


def test_a_claim_is_made_between_tricks_and_of_the_tricks_left() -> None:
    state = _hand()
    _play_tricks(state, 2)
    seat = state.to_act
    assert seat is not None
    state.play(seat, state.legal_plays(seat)[0])
    with pytest.raises(IllegalActionError) as info:
        state.claim_tricks(Seat.N, 1)
    assert info.value.rule == "bad_claim"
    _play_tricks(state, 3)
    with pytest.raises(IllegalActionError):
        state.claim_tricks(Seat.N, 11)


def test_the_unplayed_cards_are_no_revoke_and_a_forged_claim_is_a_finding() -> None:
    state = _hand(9)
    _play_tricks(state, 10)
    state.claim_tricks(Seat.W, 0)  # W concedes the last three tricks
    state.answer_claim(Seat.N, True)
    state.answer_claim(Seat.S, True)
    doc = _record(state)
    report = audit_document(doc)
    assert report["verdict"] == "clean", report["findings"]
    assert report["hands"][0]["tricks"]["NS"] == state.won[0]

    for claim in (
        {"claimer": "W", "tricks": 4, "agreed": ["N", "S"]},  # more than were left
        {"claimer": "W", "tricks": 0, "agreed": ["N", "E"]},  # the partner agreed
    ):
        forged = copy.deepcopy(doc)
        forged["hands"][0]["claim"] = claim
        report = audit_document(forged)
        assert [f["code"] for f in report["findings"]] == ["CLAIM_INVALID"]
        assert report["hands"][0]["score"] is None
    short = copy.deepcopy(doc)
    del short["hands"][0]["claim"]  # ten tricks and no claim: not a hand
    codes = [f["code"] for f in audit_document(short)["findings"]]
    assert codes == ["HAND_NOT_REPLAYABLE"]
    assert all(len(t["cards"]) == 4 for t in doc["hands"][0]["tricks"])


def _cards(text: str) -> list[int]:
    return [parse_card(c) for c in text.split()]


def test_the_bots_accept_only_a_claim_sure_from_the_cards_an_adversary_sees() -> None:
    from audit.rules.claims import accepts_claim, sure_tricks
    from audit.rules.contract import Contract

    # AS KS QH: with every other spade played, all three are masters in hearts or spades
    claimer = _cards("AS KS AH")
    played = _cards(
        " ".join(f"{r}S" for r in ("2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q"))
    )
    assert sure_tricks(claimer, played, Contract.S) == 3
    # trumps out (hearts): only the master trump (AH) is sure
    assert sure_tricks(claimer, played, Contract.H) == 1
    # a grand: AS KS, and AH (no trumps), are masters
    assert sure_tricks(claimer, [], Contract.GRAND) == 3  # KS: the AS above it is the claimer's
    assert sure_tricks(_cards("AS QS"), [], Contract.GRAND) == 1  # the KS is out

    def accepts(contract: Contract, leads: bool, tricks: int) -> bool:
        return accepts_claim(
            claimer=claimer,
            played=played,
            contract=contract,
            claimer_leads=leads,
            tricks=tricks,
            left=3,
        )

    assert accepts(Contract.S, True, 3)
    assert not accepts(Contract.S, False, 1)
    assert accepts(Contract.S, False, 0)
    assert not accepts(Contract.H, True, 2)
    # a nullo: only the claimer's side taking every trick left (a concession)
    assert accepts(Contract.NULLO, False, 3)
    assert not accepts(Contract.NULLO, True, 0)


def test_the_reports_say_a_hand_ended_by_a_claim() -> None:
    from audit.report.html import render_html
    from audit.report.text import render_text

    state = _hand()
    _play_tricks(state, 10)
    state.claim_tricks(Seat.N, 2)
    state.answer_claim(Seat.E, True)
    state.answer_claim(Seat.W, True)
    doc = _record(state)
    report = audit_document(doc)
    said = "ended by a claim: N's side took 2 of the tricks not played, agreed by E and W"
    assert said in render_text(report, doc)
    assert "Ended by a claim: N&#39;s side took 2" in render_html(report, doc)
