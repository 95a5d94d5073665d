"""Replaying recorded hands: every irregularity reported as data, play goes on."""

from __future__ import annotations

import random
from typing import Any

from audit.record.codec import load_record
from audit.record.generate import play_hand
from audit.rules.cards import CARD_TEXT, Seat, parse_card
from audit.rules.replay import replay_hand

from .helpers import record, sorted_deal, worked_example


def replay_doc(doc: dict[str, Any], index: int = 0):  # type: ignore[no-untyped-def]
    return replay_hand(load_record(doc).hands[index])


def codes(outcome: Any) -> list[str]:
    return [i.code for i in outcome.irregularities]


def test_the_worked_example_replays_clean_with_the_books_tricks() -> None:
    doc = worked_example()
    tricks = [replay_doc(doc, i).tricks for i in range(3)]
    assert tricks == [[8, 5], [3, 10], [12, 1]]
    assert all(not replay_doc(doc, i).irregularities for i in range(3))
    assert replay_doc(doc, 0).honours[1] == 3


def one_suit_hand(**over: Any) -> dict[str, Any]:
    # N all spades, E hearts, S diamonds, W clubs; N calls spades and ruffs everything.
    tricks = [{"leader": "E", "cards": ["2H", "2D", "2C", "2S"]}]
    for i in range(1, 13):
        r = "23456789TJQKA"[i]
        tricks.append({"leader": "N", "cards": [r + "S", r + "H", r + "D", r + "C"]})
    hand = {
        "dealer": "N",
        "deal": sorted_deal(),
        "cayenne": "7S",
        "calls": [{"seat": "N", "call": "S"}],
        "tricks": tricks,
    }
    hand.update(over)
    return hand


def test_a_slam_hand() -> None:
    out = replay_doc(record(one_suit_hand()))
    assert out.tricks == [13, 0] and out.winners == [Seat.N] * 13 and out.unit == 4
    assert out.honours == (5, 0)


def test_call_out_of_turn() -> None:
    out = replay_doc(record(one_suit_hand(calls=[{"seat": "E", "call": "S"}])))
    assert codes(out) == ["CALL_OUT_OF_TURN"] and out.irregularities[0].seat is Seat.E
    out = replay_doc(
        record(one_suit_hand(calls=[{"seat": "N", "call": "pass"}, {"seat": "W", "call": "S"}]))
    )
    assert codes(out) == ["CALL_OUT_OF_TURN"]
    out = replay_doc(
        record(one_suit_hand(calls=[{"seat": "N", "call": "pass"}, {"seat": "S", "call": "S"}]))
    )
    assert codes(out) == []


def test_lead_out_of_turn_is_reported_and_play_goes_on() -> None:
    hand = one_suit_hand()
    hand["tricks"][0] = {"leader": "S", "cards": ["2D", "2C", "2S", "2H"]}
    out = replay_doc(record(hand))
    assert codes(out) == ["LEAD_OUT_OF_TURN"]
    assert out.irregularities[0].trick == 1 and out.irregularities[0].evidence == {"expected": "E"}
    assert out.tricks == [13, 0]


def test_card_not_held_and_played_twice() -> None:
    hand = one_suit_hand()
    hand["tricks"][1]["cards"][1] = "3D"  # E plays S's card
    hand["tricks"][2]["cards"][0] = "2S"  # N plays the deuce again
    out = replay_doc(record(hand))
    found = [(i.code, i.trick, i.seat, i.evidence.get("reason")) for i in out.irregularities]
    assert ("CARD_NOT_HELD", 2, Seat.E, "did not hold it") in found
    assert ("CARD_NOT_HELD", 3, Seat.N, "played it before") in found


def test_revoke_with_the_card_still_held_as_evidence() -> None:
    rng = random.Random(11)
    for _ in range(200):
        state, _order = play_hand(rng, Seat.N, calls=["H"])
        hand = state.to_record_hand()
        # find a player who followed suit in trick i and discarded another suit later
        for i, t in enumerate(state.tricks):
            led = t.cards[0] // 13
            for k in range(1, 4):
                seat = t.seat_of(k)
                if t.cards[k] // 13 != led:
                    continue
                for j in range(i + 1, 13):
                    later = state.tricks[j]
                    pos = (seat - later.leader) & 3
                    if later.cards[pos] // 13 != led:
                        hand["tricks"][i]["cards"][k] = CARD_TEXT[later.cards[pos]]
                        hand["tricks"][j]["cards"][pos] = CARD_TEXT[t.cards[k]]
                        out = replay_doc(record(hand))
                        revoke = next(x for x in out.irregularities if x.code == "REVOKE")
                        assert revoke.trick == i + 1 and revoke.seat is seat
                        assert CARD_TEXT[t.cards[k]] in revoke.evidence["held"]
                        assert revoke.evidence["led"] == "SHDC"[led]
                        assert (i + 1, seat) in out.revokes
                        return
    raise AssertionError("no hand suitable for a revoke found")


def test_ace_high_only_in_nullo_and_only_aces() -> None:
    hand = one_suit_hand()
    hand["tricks"][12]["ace_high"] = ["AS"]
    out = replay_doc(record(hand))
    assert codes(out) == ["ACE_HIGH_INVALID"]
    hand = one_suit_hand(calls=[{"seat": "N", "call": "nullo"}])
    hand["tricks"][5]["ace_high"] = ["7S"]
    assert "ACE_HIGH_INVALID" in codes(replay_doc(record(hand)))


def test_ace_declared_high_in_nullo_wins() -> None:
    doc = record(
        {
            "dealer": "W",
            "deal": sorted_deal(),
            "cayenne": "2C",
            "calls": [{"seat": "W", "call": "nullo"}],
            "tricks": [{"leader": "N", "cards": ["AS", "2H", "2D", "2C"]}]
            + [
                {"leader": "N", "cards": [r + "S", r + "H", r + "D", r + "C"]}
                for r in "3456789TJQK"
            ]
            + [{"leader": "N", "cards": ["2S", "AH", "AD", "AC"]}],
        }
    )
    out = replay_doc(doc)
    assert out.tricks == [13, 0]  # N leads every trick and nobody can follow
    doc["hands"][0]["tricks"][0]["ace_high"] = ["AS"]
    assert replay_doc(doc).irregularities == []


def test_a_trick_of_three_cards_stops_the_replay_of_that_hand_only() -> None:
    doc = worked_example()
    doc["hands"][1]["tricks"][6]["cards"].pop()
    rec = load_record(doc)
    broken = replay_hand(rec.hands[1])
    assert not broken.replayable and codes(broken) == ["HAND_NOT_REPLAYABLE"]
    assert broken.irregularities[0].trick == 7
    assert replay_hand(rec.hands[2]).replayable


def test_deal_invalid() -> None:
    hand = one_suit_hand()
    hand["deal"]["N"][0] = "2H"  # E's deuce of hearts dealt twice, N's deuce of spades missing
    out = replay_doc(record(hand))
    msgs = [i.message for i in out.irregularities if i.code == "DEAL_INVALID"]
    assert any("dealt twice: 2H" in m for m in msgs) and any(
        "missing from the deal: 2S" in m for m in msgs
    )
    assert not out.deal_valid


def test_parse_card_matches_record() -> None:
    assert parse_card("AS") == 12
