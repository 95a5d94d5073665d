from __future__ import annotations

import pytest

from audit.errors import FairplayError, InvalidCardError
from audit.rules.cards import (
    ALL_CARDS,
    CARD_TEXT,
    Seat,
    Side,
    Suit,
    card_text,
    cards_of,
    make_card,
    mask_of,
    parse_card,
    parse_suit,
)


def test_every_card_round_trips_through_text() -> None:
    assert len(set(CARD_TEXT)) == 52
    for c in ALL_CARDS:
        assert parse_card(card_text(c)) == c


def test_ten_is_accepted_as_10_and_printed_as_t() -> None:
    assert parse_card("10H") == parse_card("TH") == make_card(10, Suit.H)
    assert card_text(parse_card("10H")) == "TH"


def test_canonical_order_is_deuce_to_ace_by_suit_s_h_d_c() -> None:
    assert [card_text(c) for c in (0, 12, 13, 51)] == ["2S", "AS", "2H", "AC"]


@pytest.mark.parametrize("bad", ["XS", "1H", "th", "T", "", "AH ", None, 7, "11S", "AX"])
def test_bad_card_text_names_the_input(bad: object) -> None:
    with pytest.raises(InvalidCardError) as info:
        parse_card(bad)
    assert repr(bad) in str(info.value)
    assert isinstance(info.value, FairplayError) and isinstance(info.value, ValueError)


def test_seats_and_sides() -> None:
    assert Seat.N.left is Seat.E and Seat.W.left is Seat.N
    assert Seat.N.partner is Seat.S and Seat.E.partner is Seat.W
    assert Seat.S.side is Side.NS and Seat.W.side is Side.EW
    assert Side.NS.other is Side.EW and Side.EW.seats == (Seat.E, Seat.W)
    with pytest.raises(InvalidCardError):
        Seat.parse("X")


def test_masks_round_trip() -> None:
    cards = [parse_card(t) for t in ("AS", "2C", "TH", "KD")]
    assert cards_of(mask_of(cards)) == sorted(cards)
    assert parse_suit("D") is Suit.D
    with pytest.raises(InvalidCardError):
        parse_suit("X")


def test_suit_symbols_and_rank_letters_have_one_python_source() -> None:
    """Only audit.rules.cards spells the suit symbols and the rank letters; the
    reports and the service's pages take them from there."""
    import ast
    from pathlib import Path

    from audit.rules.cards import RANK_LETTERS, SUIT_SYMBOLS

    root = Path(__file__).resolve().parents[2]
    spelled = []
    for package in ("audit", "api", "shuffle"):
        for path in sorted((root / package).rglob("*.py")):
            if path == root / "audit" / "rules" / "cards.py":
                continue
            for node in ast.walk(ast.parse(path.read_text())):
                text = node.value if isinstance(node, ast.Constant) else None
                if isinstance(text, str) and (
                    RANK_LETTERS in text or any(s in text for s in SUIT_SYMBOLS)
                ):
                    spelled.append(f"{path.relative_to(root)}:{node.lineno}")
    assert spelled == []
