"""Deal numbers: both directions, Big Deal's numbering, and bad input."""

from __future__ import annotations

from math import comb, factorial

import pytest
from hypothesis import given
from hypothesis import strategies as st

from audit.rules.cards import Seat, parse_card
from audit.rules.deal import deal_from_order
from shuffle.dealnumber import (
    BIG_DEAL_INDEX,
    DEAL_COUNT,
    DealNumberError,
    deal_from_number,
    deal_number,
)

from . import reference


def test_deal_count() -> None:
    assert DEAL_COUNT == factorial(52) // factorial(13) ** 4 == 53644737765488792839237440000


def test_big_deal_card_order() -> None:
    assert BIG_DEAL_INDEX[parse_card("AS")] == 0
    assert BIG_DEAL_INDEX[parse_card("KS")] == 1
    assert BIG_DEAL_INDEX[parse_card("2S")] == 12
    assert BIG_DEAL_INDEX[parse_card("AH")] == 13
    assert BIG_DEAL_INDEX[parse_card("2C")] == 51


def test_the_first_and_last_deals() -> None:
    first = deal_from_number(0)
    assert [sorted(first[s]) for s in Seat] == [list(range(13 * s, 13 * s + 13)) for s in Seat]
    last = deal_from_number(DEAL_COUNT - 1)
    assert last[Seat.N] == list(range(39, 52)) and last[Seat.W] == list(range(13))
    # Swapping North's lowest spade (2S) and East's ace of hearts: North's set moves
    # lexicographically by one step within the Big Deal order.
    d = {s: list(h) for s, h in first.items()}
    d[Seat.N][0], d[Seat.E][12] = d[Seat.E][12], d[Seat.N][0]
    assert deal_number(d) == comb(39, 13) * comb(26, 13)


@given(st.permutations(list(range(52))), st.sampled_from(list(Seat)))
def test_round_trip_and_big_deal_agreement(order: list[int], dealer: Seat) -> None:
    deal = deal_from_order(order, dealer)
    g = deal_number(deal)
    assert 0 <= g < DEAL_COUNT
    back = deal_from_number(g)
    assert all(back[s] == sorted(deal[s]) for s in Seat)
    bd = reference.big_deal_code_to_hand(g)
    assert all(bd[s.name] == {BIG_DEAL_INDEX[c] for c in deal[s]} for s in Seat)


@given(st.integers(0, DEAL_COUNT - 1))
def test_number_round_trip(g: int) -> None:
    assert deal_number(deal_from_number(g)) == g


def test_order_within_a_hand_does_not_matter() -> None:
    deal = deal_from_number(123456789123456789)
    rev = {s: list(reversed(h)) for s, h in deal.items()}
    assert deal_number(rev) == 123456789123456789


@pytest.mark.parametrize("bad", [-1, DEAL_COUNT, True, 1.5])
def test_numbers_out_of_range(bad: object) -> None:
    with pytest.raises(DealNumberError):
        deal_from_number(bad)  # type: ignore[arg-type]


def test_invalid_deals() -> None:
    good = deal_from_number(5)
    short = dict(good)
    short[Seat.S] = good[Seat.S][:12]
    twice = {s: list(h) for s, h in good.items()}
    twice[Seat.W][0] = twice[Seat.N][0]
    for bad in (short, twice, {s: h for s, h in good.items() if s != Seat.E}):
        with pytest.raises(DealNumberError):
            deal_number(bad)
