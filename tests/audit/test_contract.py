from __future__ import annotations

import pytest

from audit.errors import InvalidCardError
from audit.rules.cards import Suit
from audit.rules.contract import Contract, unit

# The rules digest's table: cayenne suit -> suits worth 4, 3, 2, 1.
TABLE = {
    Suit.H: (Suit.H, Suit.D, Suit.C, Suit.S),
    Suit.D: (Suit.D, Suit.H, Suit.C, Suit.S),
    Suit.C: (Suit.C, Suit.S, Suit.H, Suit.D),
    Suit.S: (Suit.S, Suit.C, Suit.H, Suit.D),
}


@pytest.mark.parametrize("cayenne", list(Suit))
def test_suit_values_follow_the_book(cayenne: Suit) -> None:
    for value, trump in zip((4, 3, 2, 1), TABLE[cayenne], strict=True):
        assert unit(Contract(int(trump)), cayenne) == value


@pytest.mark.parametrize("cayenne", list(Suit))
def test_grand_and_nullo_are_worth_eight(cayenne: Suit) -> None:
    assert unit(Contract.GRAND, cayenne) == unit(Contract.NULLO, cayenne) == 8


def test_contract_text() -> None:
    assert Contract.parse("grand") is Contract.GRAND and Contract.parse("H").trump == Suit.H
    assert Contract.NULLO.trump is None and Contract.NULLO.text == "nullo"
    with pytest.raises(InvalidCardError, match="'NT' is not a contract"):
        Contract.parse("NT")
