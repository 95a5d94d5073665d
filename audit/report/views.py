"""What the shared hand templates draw: cards, holdings, seats and tricks as plain values.

The audit HTML report (:mod:`audit.report.html`) and the service's pages
(``api/routes/pages.py``) build these and hand them to the macros of
``audit/report/templates/cards.html``; the templates only lay them out, with
autoescaping, so no text from a record reaches a page unescaped.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import NamedTuple

from audit.rules.cards import RANK_LETTERS, SUIT_OF, SUIT_SYMBOLS, Card

__all__ = [
    "SUIT_CLASS",
    "CardView",
    "Cell",
    "SeatView",
    "SuitRow",
    "TrickRow",
    "card_view",
    "holding_rows",
]

SUIT_CLASS = ("s", "h", "d", "c")
"""The CSS class of each suit; hearts and diamonds also get ``red``."""


class CardView(NamedTuple):
    """One card as drawn: rank letter, suit symbol, CSS classes."""

    rank: str
    symbol: str
    cls: str


class SuitRow(NamedTuple):
    """One suit of a holding: its symbol, CSS classes and the ranks high to low."""

    symbol: str
    cls: str
    ranks: str


class SeatView(NamedTuple):
    """A seat of the deal diagram: ``name`` (N, E, S, W), the heading, an optional
    tooltip (the player's id) and the holding."""

    name: str
    heading: str
    title: str
    rows: list[SuitRow]


class Cell(NamedTuple):
    """A seat's card in a trick: CSS classes (lead, win, irregular), the card, whether
    it was declared high, and any card the seat took back (a corrected revoke)."""

    cls: str
    card: CardView | None
    high: bool
    took_back: list[CardView]


class TrickRow(NamedTuple):
    """A row of the trick table: its number, anchor id, leader, cells N E S W, winner."""

    number: int
    anchor: str
    leader: str
    cells: list[Cell]
    winner: str


def _classes(suit: int) -> str:
    return SUIT_CLASS[suit] + (" red" if suit in (1, 2) else "")


def card_view(card: Card) -> CardView:
    suit = SUIT_OF[card]
    rank = RANK_LETTERS[card % 13]
    # The ten is written 10 wherever a person reads a card: tricks and diagrams alike.
    return CardView("10" if rank == "T" else rank, SUIT_SYMBOLS[suit], _classes(suit))


def holding_rows(cards: Iterable[Card], *, sep: str = " ", ten: str = "10") -> list[SuitRow]:
    """The four suits of a holding, ranks high to low joined by ``sep`` (a dash when
    void); ``ten`` is how the ten is written."""
    held = sorted(cards, reverse=True)
    rows = []
    for suit in range(4):
        ranks = sep.join(RANK_LETTERS[c % 13] for c in held if SUIT_OF[c] == suit)
        rows.append(
            SuitRow(SUIT_SYMBOLS[suit], _classes(suit), ranks.replace("T", ten) or "\u2014")
        )
    return rows
