"""A hand's rules state as the service sees it: actions applied to it, what readers may
see of it, whose turn it is, and the rubber's score carried to the next hand."""

from __future__ import annotations

import copy
from dataclasses import dataclass
from typing import Any

from api import rows
from api.errors import BadRequest
from audit.rules.cards import Seat, parse_card
from audit.rules.deal import check_pattern
from audit.rules.play import HandState

__all__ = [
    "PLAYER_KINDS",
    "ZERO_SCORE",
    "Snapshot",
    "apply_action",
    "next_start",
    "ruleset_pattern",
    "waiting_for",
]

ZERO_SCORE: dict[str, Any] = {"points": {"NS": 0, "EW": 0}, "games": {"NS": 0, "EW": 0}}


def ruleset_pattern(ruleset: dict[str, Any]) -> tuple[int, ...]:
    return check_pattern(ruleset.get("deal_pattern", (4, 4, 5)))


PLAYER_KINDS = ("commit", "reveal", "call", "play")
"""The events a player signs; the server signs ``open``, ``server_reveal``, ``end``, ``void``."""


def next_start(report: dict[str, Any]) -> dict[str, Any]:
    """The rubber's state after a hand, from the hand's audit report."""
    rubbers = report.get("rubbers") or []
    if rubbers and rubbers[-1].get("winner") is not None:
        return copy.deepcopy(ZERO_SCORE)
    hands = report.get("hands") or []
    points = hands[-1]["score"]["points"] if hands else {"NS": 0, "EW": 0}
    games = rubbers[-1].get("games", {"NS": 0, "EW": 0}) if rubbers else {"NS": 0, "EW": 0}
    start: dict[str, Any] = {"points": dict(points), "games": dict(games)}
    if rubbers and (rubbers[-1]["sheet"]["NS"] or rubbers[-1]["sheet"]["EW"]):
        # the rubber's sheet so far, so that each hand's record values the whole rubber
        start["sheet"] = {side: list(rubbers[-1]["sheet"][side]) for side in ("NS", "EW")}
    return start


def waiting_for(hand: rows.HandRow, to_act: Seat | None) -> list[str]:
    """The seats whose action the hand waits for (``to_act`` once it is dealt)."""
    c = hand.ceremony
    if hand.phase == "committing":
        return [s.name for s in Seat if s.name not in c["commitments"]]
    if hand.phase == "revealing":
        return [s.name for s in Seat if s.name not in c["seeds"]]
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


def apply_action(state: HandState, seat: Seat, kind: str, body: dict[str, Any]) -> None:
    """A call or a play on the rules state (raises IllegalActionError, changing nothing)."""
    if kind == "call":
        call = body.get("call")
        if not isinstance(call, str):
            raise BadRequest("event.body.call: expected text", details={"path": "event.body.call"})
        state.call(seat, call)
    elif kind == "play":
        card = parse_card(body.get("card"))
        ace_high = body.get("ace_high", False)
        if not isinstance(ace_high, bool):
            raise BadRequest(
                "event.body.ace_high: expected true or false",
                details={"path": "event.body.ace_high"},
            )
        state.play(seat, card, ace_high)
