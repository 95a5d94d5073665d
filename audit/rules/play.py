"""Trick play: who wins a trick, what may be played, and the live state of a hand.

Layers, as in python-chess: :func:`trick_winner` is the pure rule; :class:`HandState`
is the checked state machine the online tables use (every call and play is validated
and a typed :class:`~audit.errors.IllegalActionError` names the rule broken). The
tolerant replay of recorded hands, which reports irregularities instead of refusing
them, lives in :mod:`audit.rules.replay`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from audit.errors import IllegalActionError
from audit.rules.cards import (
    ACE,
    CARD_TEXT,
    RANK_OF,
    SUIT_MASK,
    SUIT_OF,
    Card,
    Mask,
    Seat,
    Side,
    cards_of,
    mask_of,
)
from audit.rules.contract import CONTRACT_BY_TEXT, Contract, unit
from audit.rules.deal import DEFAULT_PATTERN
from audit.rules.model import Claim

__all__ = [
    "NULLO_RANK_VALUE",
    "PendingClaim",
    "RANK_VALUE",
    "HandState",
    "Trick",
    "legal_plays_from",
    "trick_winner",
    "winning_index",
]

# Rank used to compare cards of one suit. In nullo an ace ranks below the deuce (1)
# unless declared high (15).
RANK_VALUE: tuple[int, ...] = RANK_OF
NULLO_RANK_VALUE: tuple[int, ...] = tuple(1 if RANK_OF[c] == ACE else RANK_OF[c] for c in range(52))


def winning_index(cards: Sequence[Card], contract: Contract, ace_high: Mask = 0) -> int:
    """Index (0-3, in play order) of the card that wins a complete trick.

    The highest card of the suit led wins unless a trump was played; then the highest
    trump wins. In nullo aces are low unless their bit is set in ``ace_high``.
    """
    trump = contract if contract < 4 else -1
    values = NULLO_RANK_VALUE if contract == Contract.NULLO else RANK_VALUE
    best = 0
    best_card = cards[0]
    best_suit = SUIT_OF[best_card]
    best_value = 15 if ace_high >> best_card & 1 else values[best_card]
    for i in range(1, len(cards)):
        c = cards[i]
        s = SUIT_OF[c]
        if s == best_suit:
            v = 15 if ace_high >> c & 1 else values[c]
            if v > best_value:
                best, best_value = i, v
        elif s == trump:
            best, best_suit, best_value = i, s, values[c]
    return best


def trick_winner(
    cards: Sequence[Card], leader: Seat, contract: Contract, ace_high: Mask = 0
) -> Seat:
    """The seat that wins a trick led by ``leader``."""
    return Seat((leader + winning_index(cards, contract, ace_high)) & 3)


def legal_plays_from(holding: Mask, led_suit: int | None) -> Mask:
    """The cards of ``holding`` that may be played: the suit led if any is held."""
    if led_suit is None:
        return holding
    follow = holding & SUIT_MASK[led_suit]
    return follow or holding


@dataclass(slots=True)
class Trick:
    """A trick in play order; complete when it holds four cards."""

    leader: Seat
    cards: list[Card] = field(default_factory=list)
    ace_high: list[Card] = field(default_factory=list)
    winner: Seat | None = None

    def seat_of(self, index: int) -> Seat:
        return Seat((self.leader + index) & 3)

    def to_json(self) -> dict[str, Any]:
        obj: dict[str, Any] = {
            "leader": self.leader.name,
            "cards": [CARD_TEXT[c] for c in self.cards],
        }
        if self.ace_high:
            obj["ace_high"] = [CARD_TEXT[c] for c in self.ace_high]
        return obj


@dataclass(slots=True)
class PendingClaim:
    """A claim of the tricks not played, waiting for the adversaries' answers."""

    claimer: Seat
    tricks: int
    """How many of the tricks left the claimer's side takes."""
    left: int
    """The tricks left to play when it was made."""
    accepted: list[Seat] = field(default_factory=list)

    @property
    def adversaries(self) -> tuple[Seat, Seat]:
        return self.claimer.left, self.claimer.left.partner

    @property
    def waiting_for(self) -> list[str]:
        """The adversaries who have not answered yet, by name."""
        return [s.name for s in self.adversaries if s not in self.accepted]

    def to_json(self) -> dict[str, Any]:
        return {
            "claimer": self.claimer.name,
            "tricks": self.tricks,
            "left": self.left,
            "accepted": [s.name for s in self.accepted],
            "waiting_for": self.waiting_for,
        }


class HandState:
    """The live state of one hand at an online table.

    Phases: ``"calling"`` (the dealer calls or passes; after a pass his partner must
    call), ``"playing"`` (thirteen tricks), ``"over"``. Every action is validated;
    an illegal one raises :class:`IllegalActionError` and changes nothing.
    """

    def __init__(
        self,
        deal: Mapping[Seat, Sequence[Card]],
        dealer: Seat,
        cayenne: Card,
        pattern: tuple[int, ...] = DEFAULT_PATTERN,
    ) -> None:
        self.deal: dict[Seat, list[Card]] = {s: list(deal[s]) for s in Seat}
        all_cards = [c for s in Seat for c in self.deal[s]]
        if any(len(self.deal[s]) != 13 for s in Seat) or len(set(all_cards)) != 52:
            raise ValueError("a deal is four hands of thirteen distinct cards")
        self.dealer = dealer
        self.cayenne = cayenne
        self.pattern = pattern
        self.calls: list[tuple[Seat, str]] = []
        self.contract: Contract | None = None
        self.holdings: list[Mask] = [mask_of(self.deal[s]) for s in Seat]
        self.tricks: list[Trick] = []
        self.won: list[int] = [0, 0]
        self.gathered: dict[Side, list[int]] = {Side.NS: [], Side.EW: []}
        self.pending_claim: PendingClaim | None = None
        """A claim the adversaries have not both answered (no card may be played)."""
        self.claim: Claim | None = None
        """The claim both adversaries accepted: the hand ended with it."""
        self.refused: list[dict[str, Any]] = []
        """Every claim refused, in order: ``{claimer, tricks, left, refused_by}``."""

    # -- state -----------------------------------------------------------------
    @property
    def phase(self) -> str:
        if self.contract is None:
            return "calling"
        if self.claim is not None:
            return "over"
        if len(self.tricks) == 13 and len(self.tricks[-1].cards) == 4:
            return "over"
        return "playing"

    @property
    def is_over(self) -> bool:
        return self.phase == "over"

    @property
    def to_act(self) -> Seat | None:
        """Whose turn it is, or ``None`` when the hand is over."""
        phase = self.phase
        if phase == "calling":
            return self.dealer if not self.calls else self.dealer.partner
        if phase == "over":
            return None
        trick = self.current_trick
        return trick.seat_of(len(trick.cards))

    @property
    def current_trick(self) -> Trick:
        """The trick being played (started when its lead is due)."""
        if not self.tricks or len(self.tricks[-1].cards) == 4:
            leader = self.dealer.left if not self.tricks else self.tricks[-1].winner
            assert leader is not None
            self.tricks.append(Trick(leader))
        return self.tricks[-1]

    @property
    def unit(self) -> int | None:
        return None if self.contract is None else unit(self.contract, SUIT_OF[self.cayenne])

    def hand(self, seat: Seat) -> list[Card]:
        """The cards ``seat`` still holds, in canonical order."""
        return cards_of(self.holdings[seat])

    def tricks_won(self) -> dict[Side, int]:
        return {Side.NS: self.won[0], Side.EW: self.won[1]}

    # -- calls -----------------------------------------------------------------
    def legal_calls(self) -> list[str]:
        if self.phase != "calling":
            return []
        contracts = ["S", "H", "D", "C", "grand", "nullo"]
        return (["pass"] + contracts) if not self.calls else contracts

    def call(self, seat: Seat, call: str) -> None:
        """The dealer calls a contract or passes; after a pass his partner must call."""
        if self.phase != "calling":
            raise IllegalActionError("bad_call", "the trump has already been made")
        expected = self.to_act
        if seat != expected:
            raise IllegalActionError(
                "out_of_turn",
                f"{seat.name} cannot call: it is {expected.name if expected is not None else '-'}'s call",
            )
        if call == "pass":
            if self.calls:
                raise IllegalActionError(
                    "bad_call", "the dealer's partner must call; he cannot pass"
                )
            self.calls.append((seat, "pass"))
            return
        contract = CONTRACT_BY_TEXT.get(call)
        if contract is None:
            raise IllegalActionError(
                "bad_call", f"{call!r} is not a call (pass, S, H, D, C, grand or nullo)"
            )
        self.calls.append((seat, call))
        self.contract = contract

    # -- play ------------------------------------------------------------------
    def legal_plays(self, seat: Seat) -> list[Card]:
        if self.phase != "playing" or self.to_act != seat or self.pending_claim is not None:
            return []
        trick = self.current_trick
        led = SUIT_OF[trick.cards[0]] if trick.cards else None
        return cards_of(legal_plays_from(self.holdings[seat], led))

    def play(self, seat: Seat, card: Card, ace_high: bool = False) -> Trick:
        """Play ``card`` from ``seat``; returns the trick it went to."""
        phase = self.phase
        if phase == "over":
            raise IllegalActionError("hand_over", "the hand is over")
        if phase == "calling":
            raise IllegalActionError(
                "out_of_turn", "no card may be played before the trump is made"
            )
        if self.pending_claim is not None:
            raise IllegalActionError(
                "claim_pending",
                f"{self.pending_claim.claimer.name}'s claim waits for the adversaries' answers",
            )
        trick = self.current_trick
        expected = trick.seat_of(len(trick.cards))
        if seat != expected:
            raise IllegalActionError(
                "out_of_turn", f"{seat.name} cannot play: it is {expected.name}'s turn"
            )
        holding = self.holdings[seat]
        if not holding >> card & 1:
            raise IllegalActionError("not_held", f"{seat.name} does not hold {CARD_TEXT[card]}")
        if trick.cards:
            led = SUIT_OF[trick.cards[0]]
            if SUIT_OF[card] != led and holding & SUIT_MASK[led]:
                raise IllegalActionError(
                    "must_follow_suit",
                    f"{seat.name} must follow suit: {CARD_TEXT[trick.cards[0]]} was led "
                    f"and {seat.name} holds {' '.join(CARD_TEXT[c] for c in cards_of(holding & SUIT_MASK[led]))}",
                )
        if ace_high:
            if self.contract != Contract.NULLO or RANK_OF[card] != ACE:
                raise IllegalActionError(
                    "ace_high_invalid", "only an ace, and only in a nullo, can be declared high"
                )
            trick.ace_high.append(card)
        self.holdings[seat] = holding & ~(1 << card)
        trick.cards.append(card)
        if len(trick.cards) == 4:
            assert self.contract is not None
            winner = trick_winner(trick.cards, trick.leader, self.contract, mask_of(trick.ace_high))
            trick.winner = winner
            self.won[winner.side] += 1
            self.gathered[winner.side].append(len(self.tricks))
        return trick

    # -- claims ----------------------------------------------------------------
    @property
    def tricks_played(self) -> int:
        """The tricks complete (a trick being played is not counted)."""
        return sum(1 for t in self.tricks if len(t.cards) == 4)

    def may_claim(self, seat: Seat) -> bool:
        """Whether ``seat`` may claim now (:meth:`claim_tricks` would accept a claim of 0)."""
        played = self.tricks_played
        return (
            self.phase == "playing"
            and self.pending_claim is None
            and not (self.tricks and len(self.tricks[-1].cards) not in (0, 4))
            and not any(r["claimer"] == seat.name and r["played"] == played for r in self.refused)
        )

    def claim_tricks(self, seat: Seat, tricks: int) -> PendingClaim:
        """``seat`` claims ``tricks`` of the tricks left for its side (docs/rules.md,
        "Claims"): between tricks, during the play, one claim at a time, and a seat whose
        claim was refused may not claim again before another trick is played."""
        if self.phase != "playing":
            raise IllegalActionError("bad_claim", f"no claim while the hand is {self.phase}")
        if self.pending_claim is not None:
            raise IllegalActionError(
                "claim_pending", f"{self.pending_claim.claimer.name}'s claim waits for answers"
            )
        if self.tricks and len(self.tricks[-1].cards) not in (0, 4):
            raise IllegalActionError("bad_claim", "a claim is made between tricks, not during one")
        played = self.tricks_played
        left = 13 - played
        if isinstance(tricks, bool) or not isinstance(tricks, int) or not 0 <= tricks <= left:
            raise IllegalActionError(
                "bad_claim", f"a claim is of 0 to {left} tricks (the tricks left), not {tricks!r}"
            )
        if any(r["claimer"] == seat.name and r["played"] == played for r in self.refused):
            raise IllegalActionError(
                "bad_claim", f"{seat.name}'s claim was refused: play a trick before claiming again"
            )
        self.pending_claim = PendingClaim(seat, tricks, left)
        return self.pending_claim

    def answer_claim(self, seat: Seat, accept: bool) -> None:
        """An adversary of the claimer accepts or refuses the pending claim: both accepting
        end the hand (the claimer's side takes the tricks claimed, the other side the
        rest); one refusal withdraws it and the play goes on."""
        pending = self.pending_claim
        if pending is None:
            raise IllegalActionError("no_claim", "there is no claim to answer")
        if seat not in pending.adversaries:
            raise IllegalActionError(
                "bad_answer",
                f"only the claimer's adversaries answer {pending.claimer.name}'s claim",
            )
        if seat in pending.accepted:
            raise IllegalActionError("bad_answer", f"{seat.name} has already accepted the claim")
        if not accept:
            self.pending_claim = None
            self.refused.append(
                {
                    "claimer": pending.claimer.name,
                    "tricks": pending.tricks,
                    "left": pending.left,
                    "played": 13 - pending.left,
                    "refused_by": seat.name,
                }
            )
            return
        pending.accepted.append(seat)
        if len(pending.accepted) < 2:
            return
        self.pending_claim = None
        if self.tricks and not self.tricks[-1].cards:
            self.tricks.pop()  # a lead due, not made: not a trick
        side = pending.claimer.side
        self.won[side] += pending.tricks
        self.won[1 - side] += pending.left - pending.tricks
        self.claim = Claim(pending.claimer, pending.tricks, tuple(pending.accepted))

    # -- views -----------------------------------------------------------------
    def public_state(self) -> dict[str, Any]:
        """What every spectator may see: no card that has not been played."""
        to_act = self.to_act
        return {
            "phase": self.phase,
            "dealer": self.dealer.name,
            "cayenne": CARD_TEXT[self.cayenne],
            "contract": None if self.contract is None else self.contract.text,
            "unit": self.unit,
            "calls": [{"seat": s.name, "call": c} for s, c in self.calls],
            "to_act": None if to_act is None else to_act.name,
            "tricks": [
                dict(t.to_json(), winner=None if t.winner is None else t.winner.name)
                for t in self.tricks
                if t.cards
            ],
            "tricks_won": {"NS": self.won[0], "EW": self.won[1]},
            "cards_left": {s.name: self.holdings[s].bit_count() for s in Seat},
            "claim": None if self.pending_claim is None else self.pending_claim.to_json(),
            "claimed": None if self.claim is None else self.claim.to_json(),
        }

    def to_record_hand(self) -> dict[str, Any]:
        """The hand as a cayenne-record/1 hand object (gathering in the order won)."""
        obj: dict[str, Any] = {
            "dealer": self.dealer.name,
            "deal": {s.name: [CARD_TEXT[c] for c in self.deal[s]] for s in Seat},
            "cayenne": CARD_TEXT[self.cayenne],
            "calls": [{"seat": s.name, "call": c} for s, c in self.calls],
            "tricks": [t.to_json() for t in self.tricks if t.cards],
        }
        if self.claim is not None:
            obj["claim"] = self.claim.to_json()  # the cards not played are not tricks
        elif self.is_over:
            obj["gathered"] = {
                "NS": list(self.gathered[Side.NS]),
                "EW": list(self.gathered[Side.EW]),
            }
        return obj
