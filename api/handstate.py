"""A hand's rules state as the service sees it: actions applied to it, what readers may
see of it, whose turn it is, and the rubber's score carried to the next hand."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from api import rows
from audit.errors import InvalidInput
from audit.rules.cards import Seat, parse_card
from audit.rules.deal import check_pattern
from audit.rules.play import HandState

# the rubber carried to the next hand: one rule for the service and the offline verifier
from audit.tournament.signed import ZERO_SCORE, next_start

__all__ = [
    "PLAYER_KINDS",
    "RULES_KINDS",
    "ZERO_SCORE",
    "Snapshot",
    "apply_action",
    "next_start",
    "ruleset_pattern",
    "waiting_for",
]


def ruleset_pattern(ruleset: dict[str, Any]) -> tuple[int, ...]:
    return check_pattern(ruleset.get("deal_pattern", (4, 4, 5)))


PLAYER_KINDS = ("commit", "reveal", "call", "play", "claim", "claim_answer")
"""The events a player signs in a hand; the server signs ``open``, ``server_reveal``,
``end``, ``void`` (a table's ``chat`` is its own chain: :mod:`api.chat`)."""

RULES_KINDS = ("call", "play", "claim", "claim_answer")
"""The player's events the rules engine applies (the ceremony's are the shuffle's)."""


def waiting_for(
    hand: rows.HandRow, to_act: Seat | None, claim: dict[str, Any] | None = None
) -> list[str]:
    """The seats whose action the hand waits for (``to_act`` once it is dealt; a
    claim's adversaries who have not answered while one is pending)."""
    c = hand.ceremony
    if hand.phase == "committing":
        return [s.name for s in Seat if s.name not in c["commitments"]]
    if hand.phase == "revealing":
        return [s.name for s in Seat if s.name not in c["seeds"]]
    if claim is not None:  # a pending claim (its public JSON): its answers
        return list(claim["waiting_for"])
    return [] if to_act is None else [to_act.name]


@dataclass(frozen=True, slots=True)
class Snapshot:
    """What readers may need from a dealt hand's rules state, taken under the hand's lock."""

    public: dict[str, Any]
    """:meth:`HandState.public_state`: no card that has not been played."""
    to_act: Seat | None
    contract: str | None
    held: dict[Seat, list[str]]
    """Private: only for the seat's own player (see ``api.routes.hands``)."""
    legal_calls: list[str]
    legal_plays: list[str]
    """The legal calls and plays of the seat to act."""
    may_claim: frozenset[Seat] = frozenset()
    """The seats that may claim the tricks left now (docs/rules.md, "Claims")."""


def apply_action(state: HandState, seat: Seat, kind: str, body: dict[str, Any]) -> None:
    """A call, a play, a claim or a claim's answer on the rules state (raises
    IllegalActionError, changing nothing)."""
    if kind == "claim":
        tricks = body.get("tricks")
        if isinstance(tricks, bool) or not isinstance(tricks, int):
            raise InvalidInput(
                "event.body.tricks: expected a whole number", details={"path": "event.body.tricks"}
            )
        state.claim_tricks(seat, tricks)
        return
    if kind == "claim_answer":
        accept = body.get("accept")
        if not isinstance(accept, bool):
            raise InvalidInput(
                "event.body.accept: expected true or false", details={"path": "event.body.accept"}
            )
        state.answer_claim(seat, accept)
        return
    if kind == "call":
        call = body.get("call")
        if not isinstance(call, str):
            raise InvalidInput(
                "event.body.call: expected text", details={"path": "event.body.call"}
            )
        state.call(seat, call)
    elif kind == "play":
        card = parse_card(body.get("card"))
        ace_high = body.get("ace_high", False)
        if not isinstance(ace_high, bool):
            raise InvalidInput(
                "event.body.ace_high: expected true or false",
                details={"path": "event.body.ace_high"},
            )
        state.play(seat, card, ace_high)
