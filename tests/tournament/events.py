"""Generated over-the-table events, for the tournament tests.

A Mitchell: every board (a deal, its dealer, pack and cayenne card) is fixed once and
played, legally, at every table its set visits. A rubber round robin: each match is
a record of legal hands. Randomness is injected; the *extreme* deal (N holds the
spades, E the hearts, S the diamonds, W the clubs) makes every result forced by the
call alone, so tests can hold the output to values worked out by hand.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

from audit.rules.cards import Card, Seat
from audit.rules.play import HandState
from audit.tournament.movement import boards_of_set, mitchell, round_robin

EXTREME: dict[Seat, list[Card]] = {s: list(range(13 * s, 13 * s + 13)) for s in Seat}
"""N the spades, E the hearts, S the diamonds, W the clubs (a card is suit * 13 + rank - 2)."""

Board = tuple[dict[Seat, list[Card]], Seat, int, Card]
"""(deal, dealer, pack, cayenne)."""


def play(
    deal: dict[Seat, list[Card]], dealer: Seat, cayenne: Card, calls: list[str], rng: random.Random
) -> dict[str, Any]:
    """A legal hand played from ``deal`` with ``calls``, random legal cards."""
    state = HandState(deal, dealer, cayenne)
    for call in calls:
        seat = state.to_act
        assert seat is not None
        state.call(seat, call)
    while not state.is_over:
        seat = state.to_act
        assert seat is not None
        state.play(seat, rng.choice(state.legal_plays(seat)))
    return state.to_record_hand()


def random_board(rng: random.Random, number: int) -> Board:
    order = list(range(52))
    rng.shuffle(order)
    deal = {s: sorted(order[13 * s : 13 * s + 13]) for s in Seat}
    return deal, Seat((number - 1) % 4), (number - 1) % 2, rng.randrange(52)


def ns_names(pair: int) -> dict[str, str]:
    return {"N": f"North{pair}", "S": f"South{pair}"}


def ew_names(pair: int) -> dict[str, str]:
    return {"E": f"East{pair}", "W": f"West{pair}"}


CallsFor = Callable[[int, int], list[str]]
"""(board, table) -> the calls made there."""


def mitchell_event(
    rng: random.Random,
    *,
    tables: int = 3,
    boards_per_round: int = 2,
    rounds: int = 3,
    name: str = "Spring Pairs",
    boards: dict[int, Board] | None = None,
    calls_for: CallsFor | None = None,
    skip: set[tuple[int, int]] = frozenset(),  # type: ignore[assignment]
    foul: set[tuple[int, int]] = frozenset(),  # type: ignore[assignment]
) -> list[dict[str, Any]]:
    """The records of a Mitchell, one per table and round. ``skip``: (board, table) not
    played; ``foul``: (board, table) where another deal was played as that board."""
    boards = dict(boards or {})
    out = []
    for rnd in mitchell(tables, rounds):
        for s in rnd.sittings:
            assert s.board_set is not None
            hands = []
            for b in boards_of_set(s.board_set, boards_per_round):
                if (b, s.table) in skip:
                    continue
                if b not in boards:
                    boards[b] = random_board(rng, b)
                deal, dealer, pack, cayenne = boards[b]
                if (b, s.table) in foul:
                    deal = random_board(rng, b)[0]
                calls = (
                    calls_for(b, s.table)
                    if calls_for
                    else [rng.choice(["S", "H", "D", "C", "grand", "nullo"])]
                )
                h = play(deal, dealer, cayenne, calls, rng)
                hands.append({"board": b, **h, "pack": pack})
            out.append(
                {
                    "format": "cayenne-record/1",
                    "event": name,
                    "round": s.round,
                    "table": str(s.table),
                    "players": {**ns_names(s.ns), **ew_names(s.ew)},
                    "hands": hands,
                }
            )
    return out


MatchHands = Callable[[int, int, int], list[dict[str, Any]]]
"""(round, table, match index) -> the hands of that match."""


def round_robin_event(
    pairs: int, hands_for: MatchHands, *, name: str = "Winter Rubbers"
) -> list[dict[str, Any]]:
    out = []
    index = 0
    for rnd in round_robin(pairs):
        for s in rnd.sittings:
            out.append(
                {
                    "format": "cayenne-record/1",
                    "event": name,
                    "round": s.round,
                    "table": str(s.table),
                    "players": {
                        "N": f"Ann{s.ns}",
                        "S": f"Bob{s.ns}",
                        "E": f"Ann{s.ew}",
                        "W": f"Bob{s.ew}",
                    },
                    "hands": hands_for(s.round, s.table, index),
                }
            )
            index += 1
    return out
