"""Random deals and random play for the solver's tests and its bench, and DDS (through
endplay) on the same positions."""

from __future__ import annotations

import random
from typing import Any

from audit.analysis.solver import Position, move_text, position
from audit.rules.cards import CARD_TEXT, RANK_LETTERS, SUIT_MASK, Card, cards_of

STRAINS = ("S", "H", "D", "C", "grand")


def random_deal(rng: random.Random) -> dict[str, list[str]]:
    cards = list(range(52))
    rng.shuffle(cards)
    return {s: [CARD_TEXT[c] for c in cards[i * 13 : (i + 1) * 13]] for i, s in enumerate("NESW")}


def random_play(
    rng: random.Random, deal: dict[str, list[str]], contract: str, leader: str, n: int
) -> list[str]:
    """``n`` legal cards at random from the opening lead (aces high or low at random)."""
    played: list[str] = []
    for _ in range(n):
        pos = position(deal, contract, leader, played)
        c, h = rng.choice(pos.legal_moves())
        played.append(move_text(c, h))
    return played


def _pbn(hands: tuple[int, ...]) -> str:
    out = []
    for h in hands:
        suits = []
        for s in range(4):
            ranks = [RANK_LETTERS[c % 13] for c in cards_of(h & SUIT_MASK[s])]
            suits.append("".join(reversed(ranks)))
        out.append(".".join(suits))
    return "N:" + " ".join(out)


def dds_values(pos: Position) -> dict[tuple[Card, bool], int]:
    """The contract side's tricks in the hand for each legal card, by DDS.

    Cayenne's trump suits are bridge's strains of the same suit and grand is no trump;
    DDS is told the cards still held, the leader of the trick in progress and its cards.
    Its score is the tricks of the side to play from the trick in progress on.
    """
    from endplay.dds import solve_board
    from endplay.types import Card as BridgeCard
    from endplay.types import Deal, Denom, Player

    hands = list(pos.hands)
    for i, (c, _) in enumerate(pos.trick):
        hands[(pos.leader + i) & 3] |= 1 << c
    deal: Any = Deal(_pbn(tuple(hands)))
    trump = pos.contract.trump
    deal.trump = Denom.nt if trump is None else Denom(trump)  # S H D C are 0..3 in both
    deal.first = Player(int(pos.leader))  # N E S W are 0..3 in both
    for c, _ in pos.trick:
        deal.play(BridgeCard(CARD_TEXT[c][1] + CARD_TEXT[c][0]))
    remaining = (sum(h.bit_count() for h in pos.hands) + len(pos.trick)) // 4
    side_to_play = pos.to_play & 1
    out: dict[tuple[Card, bool], int] = {}
    for card, score in solve_board(deal):
        c = int(card.suit) * 13 + int(card.rank).bit_length() - 3
        ours = score if side_to_play == pos.counted else remaining - score
        out[(c, False)] = pos.won + ours
    return out
