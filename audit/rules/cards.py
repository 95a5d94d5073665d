"""Cards, suits, ranks, seats and sides.

A card is a small ``int`` in ``0..51``: ``suit * 13 + (rank - 2)``, suits in the order
S, H, D, C and ranks from the deuce (2) up to the ace (14). That number is also the
card's place in the *canonical card order* (2S 3S … AS 2H … AC) used by the shuffle
protocol. A set of cards (a hand) is a 52-bit mask, bit ``card`` set when held.

Text is parsed at the edge (:func:`parse_card`) and printed canonically
(:func:`card_text`, two characters, ``"TH"``); ``"10H"`` is accepted on input.
"""

from __future__ import annotations

from collections.abc import Iterable
from enum import IntEnum

from audit.errors import InvalidCardError

__all__ = [
    "ACE",
    "ALL_CARDS",
    "CARD_BY_TEXT",
    "CARD_TEXT",
    "FULL_MASK",
    "HONOURS_OF_SUIT",
    "RANK_LETTERS",
    "RANK_OF",
    "SEATS",
    "SEAT_BY_TEXT",
    "SUIT_LETTERS",
    "SUIT_MASK",
    "SUIT_OF",
    "TEN",
    "Card",
    "Mask",
    "Seat",
    "Side",
    "Suit",
    "card_text",
    "cards_of",
    "make_card",
    "mask_of",
    "parse_card",
    "parse_suit",
]

Card = int
"""A card, ``0..51`` (see the module docstring)."""

Mask = int
"""A set of cards as a 52-bit integer."""


class Suit(IntEnum):
    """The four suits, in the record's notation order."""

    S = 0
    """Spades."""
    H = 1
    """Hearts."""
    D = 2
    """Diamonds."""
    C = 3
    """Clubs."""

    @property
    def letter(self) -> str:
        return "SHDC"[self]

    @property
    def is_red(self) -> bool:
        return self in (Suit.H, Suit.D)


class Seat(IntEnum):
    """Seats in clockwise order; N-S and E-W are partners."""

    N = 0
    """North (the book's Z when Z deals first)."""
    E = 1
    """East (the book's A)."""
    S = 2
    """South (the book's Y)."""
    W = 3
    """West (the book's B)."""

    @property
    def left(self) -> Seat:
        """The next seat clockwise: the dealer's left, the next to play."""
        return Seat((self + 1) & 3)

    @property
    def partner(self) -> Seat:
        return Seat((self + 2) & 3)

    @property
    def side(self) -> Side:
        return Side(self & 1)

    @classmethod
    def parse(cls, text: object) -> Seat:
        if isinstance(text, str) and text in SEAT_BY_TEXT:
            return SEAT_BY_TEXT[text]
        raise InvalidCardError(f"{text!r} is not a seat (N, E, S or W)")


class Side(IntEnum):
    """The two partnerships."""

    NS = 0
    """North and South."""
    EW = 1
    """East and West."""

    @property
    def other(self) -> Side:
        return Side(self ^ 1)

    @property
    def seats(self) -> tuple[Seat, Seat]:
        return (Seat(self), Seat(self + 2))

    @classmethod
    def parse(cls, text: object) -> Side:
        if text == "NS":
            return Side.NS
        if text == "EW":
            return Side.EW
        raise InvalidCardError(f"{text!r} is not a side (NS or EW)")


SEATS: tuple[Seat, ...] = tuple(Seat)
SEAT_BY_TEXT: dict[str, Seat] = {s.name: s for s in Seat}
RANK_LETTERS = "23456789TJQKA"
SUIT_LETTERS = "SHDC"
SUIT_SYMBOLS = "\u2660\u2665\u2666\u2663"
"""The suits' symbols (spade, heart, diamond, club) in suit order: the one source for the
reports and the service's pages (the browser's JavaScript keeps its own copy)."""
ACE = 14
TEN = 10

ALL_CARDS: tuple[Card, ...] = tuple(range(52))
FULL_MASK: Mask = (1 << 52) - 1
SUIT_MASK: tuple[Mask, ...] = tuple(((1 << 13) - 1) << (13 * s) for s in range(4))

SUIT_OF: tuple[int, ...] = tuple(c // 13 for c in range(52))
RANK_OF: tuple[int, ...] = tuple(c % 13 + 2 for c in range(52))
CARD_TEXT: tuple[str, ...] = tuple(RANK_LETTERS[c % 13] + SUIT_LETTERS[c // 13] for c in range(52))
CARD_BY_TEXT: dict[str, Card] = {t: c for c, t in enumerate(CARD_TEXT)}
CARD_BY_TEXT.update({"10" + SUIT_LETTERS[c // 13]: c for c in range(52) if c % 13 == 8})
HONOURS_OF_SUIT: tuple[Mask, ...] = tuple(
    sum(1 << (s * 13 + r - 2) for r in (10, 11, 12, 13, 14)) for s in range(4)
)
"""A K Q J 10 of each suit: the five honours when that suit is trumps."""


def make_card(rank: int, suit: int) -> Card:
    """The card of ``rank`` (2..14) in ``suit``."""
    if not 2 <= rank <= 14 or not 0 <= suit <= 3:
        raise InvalidCardError(f"no card of rank {rank} in suit {suit}")
    return suit * 13 + rank - 2


def parse_card(text: object) -> Card:
    """Parse ``"TH"``, ``"10H"`` (case-sensitive, as the record format fixes)."""
    if isinstance(text, str):
        card = CARD_BY_TEXT.get(text)
        if card is not None:
            return card
    raise InvalidCardError(f"{text!r} is not a card")


def card_text(card: Card) -> str:
    """Canonical two-character text: rank then suit."""
    return CARD_TEXT[card]


def parse_suit(text: object) -> Suit:
    if isinstance(text, str) and len(text) == 1 and text in SUIT_LETTERS:
        return Suit(SUIT_LETTERS.index(text))
    raise InvalidCardError(f"{text!r} is not a suit (S, H, D or C)")


def mask_of(cards: Iterable[Card]) -> Mask:
    m = 0
    for c in cards:
        m |= 1 << c
    return m


def cards_of(mask: Mask) -> list[Card]:
    """The cards of a mask, in canonical order."""
    out: list[Card] = []
    while mask:
        low = mask & -mask
        out.append(low.bit_length() - 1)
        mask ^= low
    return out
