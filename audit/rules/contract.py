"""Contracts (the trump call) and the value of a trick.

The cayenne card sets the suits' values: the cayenne suit is worth 4, the other suit
of its colour 3, and the other colour's suits 2 and 1 (table in the rules digest).
Grand (no trumps, take tricks) and nullo (no trumps, avoid tricks) are worth 8.
"""

from __future__ import annotations

from enum import IntEnum

from audit.errors import InvalidCardError
from audit.rules.cards import Suit

__all__ = ["CONTRACT_BY_TEXT", "CONTRACT_TEXT", "NO_TRUMP_UNIT", "SUIT_VALUE", "Contract", "unit"]


class Contract(IntEnum):
    """A trump suit (same numbers as :class:`Suit`), grand or nullo."""

    S = 0
    """Spades are trumps."""
    H = 1
    """Hearts are trumps."""
    D = 2
    """Diamonds are trumps."""
    C = 3
    """Clubs are trumps."""
    GRAND = 4
    """No trumps; the side with more than six tricks scores."""
    NULLO = 5
    """No trumps; tricks over six count for the adversaries; aces low unless declared."""

    @property
    def text(self) -> str:
        return CONTRACT_TEXT[self]

    @property
    def trump(self) -> int | None:
        """The trump suit, or ``None`` in grand and nullo."""
        return int(self) if self < 4 else None

    @property
    def has_trump(self) -> bool:
        return self < 4

    @classmethod
    def parse(cls, text: object) -> Contract:
        if isinstance(text, str) and text in CONTRACT_BY_TEXT:
            return CONTRACT_BY_TEXT[text]
        raise InvalidCardError(f"{text!r} is not a contract (S, H, D, C, grand or nullo)")


CONTRACT_TEXT = ("S", "H", "D", "C", "grand", "nullo")
CONTRACT_BY_TEXT: dict[str, Contract] = {t: Contract(i) for i, t in enumerate(CONTRACT_TEXT)}

# SUIT_VALUE[cayenne][trump] -> unit. Rows follow the digest's table.
_ORDER = {
    Suit.H: (Suit.H, Suit.D, Suit.C, Suit.S),
    Suit.D: (Suit.D, Suit.H, Suit.C, Suit.S),
    Suit.C: (Suit.C, Suit.S, Suit.H, Suit.D),
    Suit.S: (Suit.S, Suit.C, Suit.H, Suit.D),
}
SUIT_VALUE: tuple[tuple[int, ...], ...] = tuple(
    tuple(4 - _ORDER[Suit(cay)].index(Suit(t)) for t in range(4)) for cay in range(4)
)
NO_TRUMP_UNIT = 8


def unit(contract: Contract, cayenne_suit: int) -> int:
    """The value of one trick (and one honour point) for this contract."""
    if contract >= 4:
        return NO_TRUMP_UNIT
    return SUIT_VALUE[cayenne_suit][contract]
