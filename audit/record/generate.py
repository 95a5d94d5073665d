"""Random legal games, for tests, benchmarks, demos and simulations.

Randomness is injected (a ``random.Random``); nothing here is used to deal a
certified hand (that is :mod:`shuffle`'s job).
"""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

from audit.record.codec import load_record
from audit.rules.cards import CARD_TEXT, RANK_OF, Card, Seat, Side
from audit.rules.deal import DEFAULT_PATTERN, deal_from_order
from audit.rules.play import HandState
from audit.rules.ruleset import DEFAULT_RULESET, Ruleset
from audit.rules.sitting import score_record

__all__ = [
    "CALLS",
    "Policy",
    "collect",
    "cut",
    "favour",
    "play_hand",
    "random_policy",
    "random_record",
    "riffle",
]

Policy = Callable[[HandState, Seat, list[Card], random.Random], Card]
CALLS = ("S", "H", "D", "C", "grand", "nullo")


def random_policy(state: HandState, seat: Seat, legal: list[Card], rng: random.Random) -> Card:
    return rng.choice(legal)


def favour(side: Side) -> Policy:
    """A policy where ``side`` plays its highest legal card and the others their lowest."""

    def policy(state: HandState, seat: Seat, legal: list[Card], rng: random.Random) -> Card:
        key = RANK_OF.__getitem__
        return max(legal, key=key) if seat.side == side else min(legal, key=key)

    return policy


def play_hand(
    rng: random.Random,
    dealer: Seat,
    *,
    pattern: tuple[int, ...] = DEFAULT_PATTERN,
    order: list[Card] | None = None,
    cayenne: Card | None = None,
    calls: list[str] | None = None,
    policy: Policy = random_policy,
) -> tuple[HandState, list[Card]]:
    """Deal (from ``order`` or a fresh random pack) and play one legal hand."""
    if order is None:
        order = list(range(52))
        rng.shuffle(order)
    state = HandState(
        deal_from_order(order, dealer, pattern),
        dealer,
        rng.randrange(52) if cayenne is None else cayenne,
        pattern,
    )
    if calls is None:
        calls = ["pass", rng.choice(CALLS)] if rng.random() < 0.3 else [rng.choice(CALLS)]
    for call in calls:
        seat = state.to_act
        assert seat is not None
        state.call(seat, call)
    while not state.is_over:
        seat = state.to_act
        assert seat is not None
        state.play(seat, policy(state, seat, state.legal_plays(seat), rng))
    return state, order


def collect(state: HandState, *, turned: bool = False) -> list[Card]:
    """The pack as put together after the hand, top card first.

    Each side stacks its tricks face down as it wins them, so the last trick won lies
    on top of its pile; N-S's pile is put on E-W's. ``turned``: each pile turned over
    (its first trick on top, each trick's cards the other way round), as a greek may
    put it together at no cost.
    """
    out: list[Card] = []
    for side in (Side.NS, Side.EW):
        pile = state.gathered[side]
        for n in pile if turned else reversed(pile):
            cards = state.tricks[n - 1].cards
            out.extend(reversed(cards) if turned else cards)
    return out


def random_record(
    rng: random.Random,
    hands: int,
    *,
    ruleset: Ruleset = DEFAULT_RULESET,
    dealt_order: bool = True,
    claimed: bool = True,
    gathered: bool = True,
    prepare: Callable[[list[Card], random.Random], list[Card]] | None = None,
    stacker: Seat | None = None,
    turn_piles: float = 0.0,
) -> dict[str, Any]:
    """A record of ``hands`` random legal hands, packs alternating, deal passing left.

    Each pack is collected after its hand (N-S's pile on E-W's, tricks in the order
    won; with probability ``turn_piles`` both piles turned over, see :func:`collect`).
    With ``prepare``, a pack's next deal is ``prepare(collected, rng)`` (a cut, a few
    riffles: a stacked deal), for every dealer or only for ``stacker``; every other
    deal is a fresh random pack.
    """
    doc: dict[str, Any] = {
        "format": "cayenne-record/1",
        "players": {"N": "Nell", "E": "Eli", "S": "Sam", "W": "Wyn"},
    }
    if ruleset != DEFAULT_RULESET:
        doc["ruleset"] = ruleset.to_json()
    out = []
    dealer = Seat.N
    packs: dict[int, list[Card]] = {}
    for i in range(hands):
        previous = packs.get(i % 2)
        order = None
        if prepare is not None and previous is not None and stacker in (None, dealer):
            order = prepare(previous, rng)
        state, order = play_hand(rng, dealer, pattern=ruleset.deal_pattern, order=order)
        turned = turn_piles > 0.0 and rng.random() < turn_piles
        packs[i % 2] = collect(state, turned=turned)
        h = state.to_record_hand()
        if not gathered:
            del h["gathered"]
        h["pack"] = i % 2
        if dealt_order:
            h["dealt_order"] = [CARD_TEXT[c] for c in order]
        out.append(h)
        dealer = dealer.left
    doc["hands"] = out
    if claimed:
        scored = score_record(load_record(doc))
        for h, s in zip(out, scored.scores, strict=True):
            if s is not None:
                h["claimed"] = s.score.to_json()
    return doc


def cut(pack: list[Card], rng: random.Random) -> list[Card]:
    """Cut the pack once, somewhere in the middle (as a dealer who only cuts)."""
    k = rng.randrange(4, 49)
    return pack[k:] + pack[:k]


def riffle(pack: list[Card], rng: random.Random) -> list[Card]:
    """One Gilbert-Shannon-Reeds riffle shuffle."""
    k = sum(rng.random() < 0.5 for _ in pack)
    left, right = pack[:k], pack[k:]
    out: list[Card] = []
    while left or right:
        if rng.random() * (len(left) + len(right)) < len(left):
            out.append(left.pop(0))
        else:
            out.append(right.pop(0))
    return out
