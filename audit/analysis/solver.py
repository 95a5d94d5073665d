"""The double-dummy solver: the public :func:`solve`, and its pure-Python oracle.

The search itself is in C (``audit.native._ddsolve``, ``audit/native/ddsrc/ddsolve.c``);
:func:`solve_python` is the same function written plainly (minimax with a table of
exact values at trick boundaries), slow but obviously right, and is what the tests
compare the C search with. Without the extension :func:`solve` uses it.

Who counts: the contract side is the leader's adversaries (the dealer's side leads
through the dealer's left). In trump and grand it wants tricks; in a nullo it wants as
few as possible and its adversaries want it to take as many as possible, so in every
contract the value is the contract side's tricks, maximised or minimised.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from types import ModuleType

from audit.errors import IllegalActionError, InvalidCardError
from audit.rules.cards import (
    ACE,
    CARD_TEXT,
    RANK_OF,
    SUIT_MASK,
    SUIT_OF,
    Card,
    Mask,
    Seat,
    cards_of,
    parse_card,
)
from audit.rules.contract import Contract
from audit.rules.play import trick_winner

__all__ = [
    "Position",
    "move_text",
    "native_available",
    "position",
    "solve",
    "solve_position",
    "solve_python",
]

HIGH = "+high"
"""Suffix of an ace declared high in a nullo (``"AS+high"``)."""

_native: ModuleType | None
try:  # the extension is optional, as the auditor's is
    from audit.native import _ddsolve

    _native = _ddsolve
except ImportError:  # pragma: no cover - only without a C compiler at install time
    _native = None


def native_available() -> bool:
    """True when the C search is built and not turned off (``FAIRPLAY_NATIVE=0``)."""
    return _native is not None and os.environ.get("FAIRPLAY_NATIVE", "1") != "0"


@dataclass(frozen=True, slots=True)
class Position:
    """A point in the play of a hand: what is still held and the trick in progress."""

    hands: tuple[Mask, Mask, Mask, Mask]
    """Cards still held, by seat (N, E, S, W)."""
    contract: Contract
    counted: int
    """The contract side (0 N-S, 1 E-W): the side whose tricks are the value."""
    won: int
    """Tricks the contract side took in the tricks already complete."""
    leader: Seat
    """Leader of the trick in progress."""
    trick: tuple[tuple[Card, bool], ...]
    """Cards of the trick in progress, in play order, with their ace-high flag."""

    @property
    def to_play(self) -> Seat:
        return Seat((self.leader + len(self.trick)) & 3)

    def legal_moves(self) -> list[tuple[Card, bool]]:
        """Every legal move: each card, and in a nullo an ace also declared high."""
        hand = self.hands[self.to_play]
        if self.trick:
            follow = hand & SUIT_MASK[SUIT_OF[self.trick[0][0]]]
            hand = follow or hand
        moves: list[tuple[Card, bool]] = []
        for c in cards_of(hand):
            moves.append((c, False))
            if self.contract == Contract.NULLO and RANK_OF[c] == ACE:
                moves.append((c, True))
        return moves


def move_text(card: Card, high: bool) -> str:
    return CARD_TEXT[card] + (HIGH if high else "")


def _parse_move(text: object, where: str) -> tuple[Card, bool]:
    if isinstance(text, str) and text.endswith(HIGH):
        return parse_card(text[: -len(HIGH)]), True
    try:
        return parse_card(text), False
    except InvalidCardError as exc:
        raise InvalidCardError(f"{where}: {exc.message}") from None


def position(
    deal: Mapping[str, Sequence[str]],
    contract: str,
    leader: str,
    played: Sequence[str] = (),
) -> Position:
    """Replay ``played`` on ``deal`` by the rules; errors name the field at fault."""
    kind = Contract.parse(contract)
    first = Seat.parse(leader)
    hands = [0, 0, 0, 0]
    seen: set[Card] = set()
    for seat in Seat:
        cards = deal.get(seat.name) if isinstance(deal, Mapping) else None
        if not isinstance(cards, Sequence) or isinstance(cards, str) or len(cards) != 13:
            raise InvalidCardError(f"deal.{seat.name}: thirteen cards are needed")
        for i, text in enumerate(cards):
            c, high = _parse_move(text, f"deal.{seat.name}[{i}]")
            if high or c in seen:
                raise InvalidCardError(f"deal.{seat.name}[{i}]: {text!r} is not a new card")
            seen.add(c)
            hands[seat] |= 1 << c
    counted = first.side.other
    won = 0
    trick_leader = first
    trick: list[tuple[Card, bool]] = []
    for i, text in enumerate(played):
        c, high = _parse_move(text, f"played[{i}]")
        seat = Seat((trick_leader + len(trick)) & 3)
        where = f"played[{i}]"
        if not hands[seat] >> c & 1:
            raise IllegalActionError(
                "not_held", f"{where}: {seat.name} does not hold {CARD_TEXT[c]}"
            )
        if trick:
            led = SUIT_OF[trick[0][0]]
            if SUIT_OF[c] != led and hands[seat] & SUIT_MASK[led]:
                raise IllegalActionError(
                    "must_follow_suit", f"{where}: {seat.name} must follow suit"
                )
        if high and (kind != Contract.NULLO or RANK_OF[c] != ACE):
            raise IllegalActionError(
                "ace_high_invalid",
                f"{where}: only an ace, and only in a nullo, can be declared high",
            )
        hands[seat] &= ~(1 << c)
        trick.append((c, high))
        if len(trick) == 4:
            high_mask = sum(1 << x for x, h in trick if h)
            winner = trick_winner([x for x, _ in trick], trick_leader, kind, high_mask)
            won += winner.side == counted
            trick_leader = winner
            trick = []
    if not any(hands):
        raise IllegalActionError("hand_over", "played: the hand is over; no card is left to judge")
    return Position(
        (hands[0], hands[1], hands[2], hands[3]),
        kind,
        int(counted),
        won,
        trick_leader,
        tuple(trick),
    )


def solve(
    deal: Mapping[str, Sequence[str]],
    contract: str,
    leader: str,
    played: Sequence[str] = (),
) -> dict[str, int]:
    """For each legal move of the seat to play, the contract side's tricks in the hand.

    ``deal`` maps ``"N" "E" "S" "W"`` to thirteen cards as in the record format,
    ``contract`` is ``"S" "H" "D" "C" "grand"`` or ``"nullo"``, ``leader`` the seat that
    led the first trick, ``played`` the cards played so far from the opening lead (an
    ace declared high in a nullo written ``"AS+high"``). In a nullo an ace is two moves.
    """
    pos = position(deal, contract, leader, played)
    return {move_text(c, h): v for (c, h), v in solve_position(pos).items()}


def solve_position(pos: Position, *, native: bool | None = None) -> dict[tuple[Card, bool], int]:
    """:func:`solve` on a replayed position, by the C search where it is available."""
    use_native = native_available() if native is None else native
    if use_native:
        if _native is None:
            raise RuntimeError("the native solver is not built")
        trump = pos.contract.trump
        rows = _native.solve(
            list(pos.hands),
            -1 if trump is None else trump,
            int(pos.contract == Contract.NULLO),
            pos.counted,
            int(pos.leader),
            [c for c, _ in pos.trick],
            [int(h) for _, h in pos.trick],
        )
        return {(c, bool(h)): pos.won + v for c, h, v in rows}
    return solve_python(pos)


# -- the oracle ------------------------------------------------------------------------


def _value(card: Card, high: bool, nullo: bool) -> int:
    if nullo and RANK_OF[card] == ACE:
        return 15 if high else 1
    return RANK_OF[card]


def _trick_winner_index(trick: Sequence[tuple[Card, bool]], trump: int, nullo: bool) -> int:
    best = 0
    suit = SUIT_OF[trick[0][0]]
    value = _value(trick[0][0], trick[0][1], nullo)
    for i in range(1, 4):
        c, h = trick[i]
        s = SUIT_OF[c]
        if s == suit:
            v = _value(c, h, nullo)
            if v > value:
                best, value = i, v
        elif s == trump:
            best, suit, value = i, s, _value(c, h, nullo)
    return best


def solve_python(pos: Position) -> dict[tuple[Card, bool], int]:
    """The oracle: plain minimax over every legal move, exact values memoised per trick."""
    nullo = pos.contract == Contract.NULLO
    trump = -1 if pos.contract.trump is None else pos.contract.trump
    counted = pos.counted
    maxside = counted ^ 1 if nullo else counted
    memo: dict[tuple[int, int, int, int, int], int] = {}

    def moves(
        hands: list[int], seat: int, trick: list[tuple[Card, bool]]
    ) -> list[tuple[Card, bool]]:
        hand = hands[seat]
        if trick:
            hand = hand & SUIT_MASK[SUIT_OF[trick[0][0]]] or hand
        out: list[tuple[Card, bool]] = []
        for c in cards_of(hand):
            out.append((c, False))
            if nullo and RANK_OF[c] == ACE:
                out.append((c, True))
        return out

    def value(hands: list[int], leader: int, trick: list[tuple[Card, bool]]) -> int:
        """Counted tricks from here (the trick in progress included)."""
        if not trick:
            if not hands[leader]:
                return 0
            key = (hands[0], hands[1], hands[2], hands[3], leader)
            got = memo.get(key)
            if got is not None:
                return got
        seat = (leader + len(trick)) & 3
        results = []
        for c, h in moves(hands, seat, trick):
            results.append(after(hands, leader, trick, c, h))
        best = max(results) if seat & 1 == maxside else min(results)
        if not trick:
            memo[key] = best
        return best

    def after(
        hands: list[int], leader: int, trick: list[tuple[Card, bool]], c: Card, h: bool
    ) -> int:
        seat = (leader + len(trick)) & 3
        hands = list(hands)
        hands[seat] &= ~(1 << c)
        trick = [*trick, (c, h)]
        if len(trick) < 4:
            return value(hands, leader, trick)
        winner = (leader + _trick_winner_index(trick, trump, nullo)) & 3
        return int(winner & 1 == counted) + value(hands, winner, [])

    hands0 = list(pos.hands)
    trick0 = list(pos.trick)
    return {
        (c, h): pos.won + after(hands0, int(pos.leader), trick0, c, h) for c, h in pos.legal_moves()
    }
