"""Whether a claim of the tricks left is sure from what an adversary may see: the house
bots' rule for answering a claim (docs/rules.md, "Claims").

An adversary sees its own cards, the cards played and, while a claim waits, the
claimer's cards; it never sees the claimer's partner's or its own partner's. The rule
is sound without any other knowledge: it counts only tricks the claimer wins whatever
the unseen cards are and however they are played.

- In a trump contract or a grand, with the claimer to lead, a card of the claimer's is a
  *master* when no card of its suit still out (not played, not the claimer's) ranks
  above it. If no trump is out (or there are none, a grand), the claimer leads its
  masters one after another and wins each: that many tricks are sure. If trumps are out,
  only its master trumps are (a side suit's master could be trumped). Not on lead: none.
- In a nullo every side wants as few tricks as it can take: only a claim that gives the
  claimer's side every trick left (a concession) is sure to be no better for it.

A claim of at most the sure tricks is accepted; any other is refused (the director, at
an event, rules on it).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from audit.rules.cards import ALL_CARDS, SUIT_MASK, SUIT_OF, Card, Mask, mask_of, parse_card
from audit.rules.contract import CONTRACT_BY_TEXT, Contract

__all__ = ["accepts_claim", "answer_from_view", "sure_tricks"]


def sure_tricks(claimer: Iterable[Card], played: Iterable[Card], contract: Contract) -> int:
    """The tricks the claimer wins for certain when it is on lead (see the module)."""
    mine = mask_of(claimer)
    out: Mask = mask_of(ALL_CARDS) & ~mine & ~mask_of(played)
    trump = int(contract) if contract < Contract.GRAND else None

    def master(card: Card) -> bool:
        above = SUIT_MASK[SUIT_OF[card]] & ~((1 << (card + 1)) - 1)  # same suit, higher
        return not out & above

    masters = [c for c in ALL_CARDS if mine >> c & 1 and master(c)]
    if trump is not None and out & SUIT_MASK[trump]:
        return sum(1 for c in masters if SUIT_OF[c] == trump)
    return len(masters)


def accepts_claim(
    *,
    claimer: Iterable[Card],
    played: Iterable[Card],
    contract: Contract,
    claimer_leads: bool,
    tricks: int,
    left: int,
) -> bool:
    """Whether an adversary accepts a claim of ``tricks`` of the ``left`` tricks for the
    claimer's side: sure from the cards it may see (see the module)."""
    if contract == Contract.NULLO:
        return tricks == left
    if tricks == 0:
        return True  # a concession: every trick left to the adversaries
    if not claimer_leads:
        return False
    return tricks <= sure_tricks(claimer, played, contract)


def answer_from_view(play: Mapping[str, Any], claim: Mapping[str, Any]) -> bool:
    """:func:`accepts_claim` from a hand's public play (``play`` of ``GET .../hands/n``)
    and the pending claim as a seat's view shows it (with the claimer's ``cards``)."""
    played = [parse_card(c) for t in play["tricks"] for c in t["cards"]]
    return accepts_claim(
        claimer=[parse_card(c) for c in claim["cards"]],
        played=played,
        contract=CONTRACT_BY_TEXT[play["contract"]],
        claimer_leads=play["to_act"] == claim["claimer"],
        tricks=int(claim["tricks"]),
        left=int(claim["left"]),
    )
