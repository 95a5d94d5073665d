"""A simulation of honest and peeking players, to measure the test of
:mod:`audit.analysis.report` (its false positive rate and its power, docs/analysis.md).

Bots play from what they can see: at each card they draw deals of the cards they cannot
see (each hand its length, void where it has shown out), average each legal move's
double-dummy value over them, add noise and play the best. Skill is the number of draws
and the noise. A peeking player also sees his left-hand opponent's hand (on a fraction
``f`` of the boards): his draws keep that hand as it is.

The double-dummy search takes seconds from the opening lead (docs/analysis.md), so the
bots decide from the ``from_card``-th card on, the cards the analysis judges; the cards
before are played by one fixed rule (lead the top of the longest suit; win as cheaply as
possible unless partner is winning, else play the lowest), the same at every table, so
each board reaches its first judged card the same way everywhere. The test never sees a
bot's skill, its draws or whether it peeked: it is :func:`audit.analysis.judge.decisions`
on the cards played, as for real records.
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from audit.analysis.judge import FROM_CARD, HandPlay, Table, sample_view
from audit.analysis.solver import Position, solve_position
from audit.rules.cards import RANK_OF, SUIT_MASK, SUIT_OF, Card, Mask, Seat, cards_of
from audit.rules.contract import Contract
from audit.rules.play import trick_winner

__all__ = ["SKILLS", "Bot", "Board", "play_board", "random_board"]

Move = tuple[Card, bool]


@dataclass(frozen=True, slots=True)
class Bot:
    """How a simulated player chooses."""

    draws: int
    """Deals imagined per decision."""
    noise: float
    """Standard deviation (in tricks) of the noise added to each move's average."""


SKILLS: tuple[Bot, ...] = (
    Bot(draws=12, noise=0.0),
    Bot(draws=8, noise=0.15),
    Bot(draws=5, noise=0.35),
    Bot(draws=3, noise=0.7),
)
"""A mixed field, from strong to weak; each player is one of these at random."""


@dataclass(frozen=True, slots=True)
class Board:
    number: int
    deal: tuple[Mask, Mask, Mask, Mask]
    leader: Seat
    contract: Contract


def random_board(number: int, rng: random.Random) -> Board:
    """A random deal; the dealer's side names its longest joint suit, or grand when no
    suit has eight cards between them."""
    cards = list(range(52))
    rng.shuffle(cards)
    deal = tuple(sum(1 << c for c in cards[i * 13 : (i + 1) * 13]) for i in range(4))
    dealer = Seat(number % 4)
    side = deal[dealer] | deal[dealer.partner]
    lengths = [(side & SUIT_MASK[s]).bit_count() for s in range(4)]
    best = max(range(4), key=lambda s: (lengths[s], -s))
    contract = Contract(best) if lengths[best] >= 8 else Contract.GRAND
    return Board(number, (deal[0], deal[1], deal[2], deal[3]), dealer.left, contract)


def _rule_card(
    hands: list[Mask], seat: Seat, trick: list[Move], leader: Seat, kind: Contract
) -> Card:
    hand = hands[seat]
    if not trick:
        suit = max(range(4), key=lambda s: ((hand & SUIT_MASK[s]).bit_count(), -s))
        return max(cards_of(hand & SUIT_MASK[suit]))
    follow = hand & SUIT_MASK[SUIT_OF[trick[0][0]]]
    legal = cards_of(follow or hand)
    cards = [c for c, _ in trick]
    winning = trick_winner([*cards, *([cards[0]] * (4 - len(cards)))], leader, kind)
    if len(trick) >= 2 and winning == seat.partner:
        return min(legal, key=lambda c: (RANK_OF[c], c))
    for c in sorted(legal, key=lambda c: (RANK_OF[c], c)):
        trial = [*cards, c]
        if trick_winner([*trial, *([cards[0]] * (4 - len(trial)))], leader, kind) == seat:
            return c
    return min(legal, key=lambda c: (RANK_OF[c], c))


def play_board(
    board: Board,
    bots: Mapping[Seat, Bot],
    rng: random.Random,
    *,
    from_card: int,
    peeking: frozenset[Seat] = frozenset(),
    source: str = "",
    players: tuple[str, str, str, str] = ("N", "E", "S", "W"),
) -> HandPlay:
    """The board played by ``bots``; the seats in ``peeking`` see their left-hand
    opponent's hand from the ``from_card``-th card on."""
    kind = board.contract
    counted = board.leader.side.other
    maximiser = counted ^ 1 if kind == Contract.NULLO else counted
    table = Table(board.deal, kind, board.leader)
    moves: list[Move] = []
    for index in range(52):
        seat = table.to_play
        if index < from_card:
            card = _rule_card(table.hands, seat, table.trick, table.leader, kind)
            move: Move = (card, False)
        else:
            pos = table.position()
            move = _bot_move(pos, seat, bots[seat], table.voids, rng, seat in peeking, maximiser)
        table.play(move)
        moves.append(move)
    return HandPlay(
        source=source or f"board {board.number}",
        board=f"board {board.number}",
        contract=kind,
        leader=board.leader,
        players=players,
        deal=board.deal,
        moves=tuple(moves),
    )


def _bot_move(
    pos: Position,
    seat: Seat,
    bot: Bot,
    voids: list[int],
    rng: random.Random,
    peek: bool,
    maximiser: int,
) -> Move:
    legal = pos.legal_moves()
    if len(legal) == 1:
        return legal[0]
    sign = 1 if seat.side == maximiser else -1
    totals = dict.fromkeys(legal, 0.0)
    seen = frozenset({seat.left}) if peek else frozenset()
    for _ in range(bot.draws):
        dealt = sample_view(pos, seat, voids, rng, seen=seen)
        values = solve_position(
            Position(dealt, pos.contract, pos.counted, pos.won, pos.leader, pos.trick)
        )
        for m in legal:
            totals[m] += sign * values[m]
    return max(legal, key=lambda m: totals[m] / bot.draws + rng.gauss(0.0, bot.noise))


@dataclass(frozen=True, slots=True)
class SideResult:
    """One side's judged choices on one simulated board at one table."""

    table: int
    side: int
    """0 N-S, 1 E-W."""
    skill: int
    """Index in :data:`SKILLS` of both partners."""
    peeking: bool
    tests: tuple[tuple[Any, ...], ...]
    """``(p_view, found, favourite, cost, cost_view, index, *seen)`` of each of its
    decisions the view leaves open: the card's cost in the true deal and its mean over the
    draws, its place in the hand, and with ``seen_draws`` the four facts of
    :attr:`audit.analysis.judge.Decision.seen` for each opponent in turn, then the three
    of :attr:`audit.analysis.judge.Decision.seen_gain` for each."""
    errors: int
    choices: int


def simulate_board(
    seed: int,
    *,
    tables: int = 7,
    from_card: int = FROM_CARD,
    samples: int = 15,
    peeker: bool = False,
    seen_draws: int = 0,
) -> list[SideResult]:
    """One random board played at ``tables`` tables by pairs of random skill (the N-S
    pair of table 0 peeking when ``peeker``), each table judged by
    :func:`audit.analysis.judge.decisions`: every side's result."""
    from audit.analysis.judge import Settings, decisions

    rng = random.Random(seed)
    board = random_board(seed, rng)
    out = []
    for table in range(tables):
        skill = (rng.randrange(len(SKILLS)), rng.randrange(len(SKILLS)))
        bots = {s: SKILLS[skill[s & 1]] for s in Seat}
        peek = peeker and table == 0
        peeking = frozenset({Seat.N, Seat.S}) if peek else frozenset()
        hand = play_board(
            board, bots, rng, from_card=from_card, peeking=peeking, source=f"sim {seed}/{table}"
        )
        settings = Settings(from_card=from_card, samples=samples, seen_draws=seen_draws, seed=seed)
        judged = decisions(hand, settings)
        for side in (0, 1):
            mine = [d for d in judged if d.seat & 1 == side]
            out.append(
                SideResult(
                    table=table,
                    side=side,
                    skill=skill[side],
                    peeking=peek and side == 0,
                    tests=tuple(
                        (
                            d.p_view or 0.0,
                            d.cost == 0,
                            bool(d.favourite),
                            d.cost,
                            round(d.cost_view or 0.0, 4),
                            d.index,
                            *d.seen,
                            *d.seen_gain,
                        )
                        for d in mine
                        if d.hidden
                    ),
                    errors=sum(d.cost > 0 for d in mine if d.choice),
                    choices=sum(d.choice for d in mine),
                )
            )
    return out
