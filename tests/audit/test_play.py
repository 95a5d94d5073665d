from __future__ import annotations

import random

import pytest

from audit.errors import IllegalActionError
from audit.rules.cards import Seat, parse_card
from audit.rules.contract import Contract
from audit.rules.deal import deal_from_order
from audit.rules.play import HandState, trick_winner


def cards(*texts: str) -> list[int]:
    return [parse_card(t) for t in texts]


def test_highest_of_the_suit_led_wins() -> None:
    assert trick_winner(cards("9C", "KC", "AD", "2C"), Seat.E, Contract.S) is Seat.S


def test_any_trump_beats_the_suit_led_and_the_highest_trump_wins() -> None:
    assert trick_winner(cards("AC", "2S", "KC", "3S"), Seat.N, Contract.S) is Seat.W
    assert trick_winner(cards("AC", "2S", "KC", "QH"), Seat.N, Contract.S) is Seat.E


def test_grand_has_no_trumps() -> None:
    assert trick_winner(cards("5C", "AS", "AH", "6C"), Seat.N, Contract.GRAND) is Seat.W


def test_nullo_aces_are_low_unless_declared_high() -> None:
    t = cards("AC", "2C", "KD", "3C")
    assert trick_winner(t, Seat.N, Contract.NULLO) is Seat.W
    assert trick_winner(t, Seat.N, Contract.NULLO, ace_high=1 << t[0]) is Seat.N
    assert trick_winner(t, Seat.N, Contract.GRAND) is Seat.N


def new_hand(seed: int = 3, dealer: Seat = Seat.N) -> HandState:
    order = list(range(52))
    random.Random(seed).shuffle(order)
    return HandState(deal_from_order(order, dealer), dealer, parse_card("7H"))


def test_the_dealer_calls_first_and_his_partner_must_call_after_a_pass() -> None:
    h = new_hand()
    assert h.to_act is Seat.N and "pass" in h.legal_calls()
    with pytest.raises(IllegalActionError) as info:
        h.call(Seat.E, "H")
    assert info.value.rule == "out_of_turn"
    h.call(Seat.N, "pass")
    assert h.to_act is Seat.S and "pass" not in h.legal_calls()
    with pytest.raises(IllegalActionError) as info:
        h.call(Seat.S, "pass")
    assert info.value.rule == "bad_call"
    with pytest.raises(IllegalActionError):
        h.call(Seat.S, "NT")
    h.call(Seat.S, "grand")
    assert h.contract is Contract.GRAND and h.phase == "playing" and h.unit == 8
    assert h.to_act is Seat.E  # eldest hand leads


def test_illegal_plays_raise_a_typed_error_and_change_nothing() -> None:
    h = new_hand()
    with pytest.raises(IllegalActionError) as info:
        h.play(Seat.E, h.hand(Seat.E)[0])
    assert info.value.rule == "out_of_turn"  # before the call
    h.call(Seat.N, "H")
    with pytest.raises(IllegalActionError) as info:
        h.play(Seat.S, h.hand(Seat.S)[0])
    assert info.value.rule == "out_of_turn"
    with pytest.raises(IllegalActionError) as info:
        h.play(Seat.E, h.hand(Seat.S)[0])
    assert info.value.rule == "not_held"
    lead = h.hand(Seat.E)[0]
    h.play(Seat.E, lead)
    led_suit = lead // 13
    south = h.hand(Seat.S)
    follow = [c for c in south if c // 13 == led_suit]
    other = [c for c in south if c // 13 != led_suit]
    if follow and other:
        with pytest.raises(IllegalActionError) as info:
            h.play(Seat.S, other[0])
        assert info.value.rule == "must_follow_suit"
        assert h.hand(Seat.S) == south
    assert set(h.legal_plays(Seat.S)) == set(follow or south)
    with pytest.raises(IllegalActionError) as info:
        h.play(Seat.S, south[0], ace_high=True)
    assert info.value.rule in ("ace_high_invalid", "must_follow_suit")


def test_a_whole_hand_ends_with_thirteen_tricks_and_a_gathering_in_order() -> None:
    rng = random.Random(9)
    h = new_hand(9, Seat.W)
    h.call(Seat.W, "nullo")
    while not h.is_over:
        seat = h.to_act
        assert seat is not None
        h.play(seat, rng.choice(h.legal_plays(seat)))
    assert h.to_act is None and sum(h.won) == 13
    rec = h.to_record_hand()
    assert sorted(rec["gathered"]["NS"] + rec["gathered"]["EW"]) == list(range(1, 14))
    with pytest.raises(IllegalActionError) as info:
        h.play(Seat.N, 0)
    assert info.value.rule == "hand_over"
    public = h.public_state()
    assert public["phase"] == "over" and public["cards_left"] == {"N": 0, "E": 0, "S": 0, "W": 0}


def test_public_state_shows_no_unplayed_card() -> None:
    h = new_hand(4)
    h.call(Seat.N, "S")
    first = h.hand(Seat.E)[0]
    h.play(Seat.E, first)
    from audit.rules.cards import CARD_TEXT

    public = h.public_state()
    assert public["cayenne"] == "7H"  # turned from the still pack: public
    del public["cayenne"]
    text = repr(public)

    for seat in Seat:
        for c in h.hand(seat):
            assert f"'{CARD_TEXT[c]}'" not in text
    assert f"'{CARD_TEXT[first]}'" in text
