"""The clock on every seat: a time control per board (a rubber table: per hand), the
server's warnings and expiries, and the house playing a seat whose time ran out.

An event's time control (``clock`` of ``POST /v1/tournaments``: ``seconds`` per board and
seat, ``warning`` seconds before the end), or an ordinary table's own (``clock`` of ``POST
/v1/tables`` and ``POST /v1/people-tables``, kept in the table's row), is copied into each
hand's row when the hand opens (``api_hands.clock``), with the seats' time used so far. A
seat's clock runs while the hand waits for its call or card: each action charges the seat
that acted with the time since the hand last moved (``since``), in the same row write as
the action, so the clock survives a restart and is the same on every host (it is the rows', never one
process's memory). While a claim waits, the clocks of the adversaries still to answer run
instead (:func:`claim_moved`).

The service's timer is :class:`api.clock_runner.ClockRunner`: one thread per process,
acting only while its process holds the lease ``clock`` (``api_leases``: one holder
across workers and hosts, taken over when its holder stops renewing it). It reads
the clocked hands waiting for a call or a card and, for the seat to act, logs
``clock_warning`` when its remaining time falls to the warning, ``clock_expired`` when it
runs out, and then plays that seat's calls and cards as the house (the server's own
events, naming the seat, :mod:`audit.rules.house`) until the hand ends. Every decision is
an event of the hand's chain, signed by the log key; each is appended at the hand's head,
so two runners racing log it once.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from datetime import datetime
from typing import Any

from api import rows
from api.errors import BadRequest
from audit.rules.cards import Seat

__all__ = [
    "CLOCK",
    "apply_event",
    "charge",
    "claim_moved",
    "control_of",
    "public_clock",
    "start",
    "used_ms",
]

log = logging.getLogger(__name__)

MAX_SECONDS = 86400

CLOCK: dict[str, Any] = {
    "type": "object",
    "description": "the time control: seconds per board (a rubber table: per hand) for each "
    "seat, and the remaining seconds at which a seat is warned (default a fifth); a seat "
    'out of time is played by the house (docs/tournaments.md, "The clock")',
    "x-error": "clock: expected an object {seconds, warning?}, nothing else",
    "required": ["seconds"],
    "additionalProperties": False,
    "properties": {
        "seconds": {
            "type": "integer",
            "minimum": 1,
            "maximum": MAX_SECONDS,
            "description": f"a whole number of seconds per board, 1 to {MAX_SECONDS}",
        },
        "warning": {
            "type": "integer",
            "minimum": 0,
            "maximum": MAX_SECONDS,
            "description": "a whole number of seconds, 0 to clock.seconds",
        },
    },
}
"""The request's ``clock`` (api/schemas.py), in :func:`control_of`'s words; a warning
longer than the seconds is refused by :func:`control_of` itself."""


def control_of(spec: object) -> dict[str, int] | None:
    """The time control of an event's or a table's spec (``clock``: ``{"seconds": S,
    "warning": W}``, S seconds per board and seat, 1 to 86400; W, the remaining seconds at which the seat
    is warned, 0 to S, default a fifth of S); ``None`` when the spec has none."""
    if spec is None:
        return None
    if not isinstance(spec, dict):
        raise BadRequest("clock: expected an object {seconds, warning}", details={"path": "clock"})
    unknown = sorted(set(spec) - {"seconds", "warning"})
    if unknown:
        raise BadRequest(
            f"clock.{unknown[0]}: not a member of the time control (seconds, warning)",
            details={"path": f"clock.{unknown[0]}"},
        )
    seconds = spec.get("seconds")
    if not isinstance(seconds, int) or isinstance(seconds, bool) or not 1 <= seconds <= MAX_SECONDS:
        raise BadRequest(
            f"clock.seconds: a whole number of seconds per board, 1 to {MAX_SECONDS}",
            details={"path": "clock.seconds"},
        )
    warning = spec.get("warning", seconds // 5)
    if not isinstance(warning, int) or isinstance(warning, bool) or not 0 <= warning <= seconds:
        raise BadRequest(
            f"clock.warning: a whole number of seconds, 0 to clock.seconds ({seconds})",
            details={"path": "clock.warning"},
        )
    return {"seconds": seconds, "warning": warning}


def fresh(control: Mapping[str, int], since: float | None) -> dict[str, Any]:
    """A new hand's clock under ``control``; ``since`` set when the hand is dealt already
    (a duplicate board), else at its deal (:func:`start`)."""
    clock: dict[str, Any] = {
        "limit_ms": 1000 * int(control["seconds"]),
        "warning_ms": 1000 * int(control["warning"]),
        "used": {},
        "warned": [],
        "expired": [],
    }
    if since is not None:
        clock["since"] = since
    return clock


def start(hand: rows.HandRow, now: float) -> None:
    """The hand is dealt: the first seat's clock runs from ``now``."""
    if hand.clock and "since" not in hand.clock:
        hand.clock["since"] = now


def _since(hand: rows.HandRow) -> float:
    since = hand.clock.get("since")
    if isinstance(since, (int, float)):
        return float(since)
    return datetime.fromisoformat(hand.started_at.replace("Z", "+00:00")).timestamp()


def charge(hand: rows.HandRow, seat: Seat, now: float) -> None:
    """``seat`` acted at ``now``: its clock stops (the time since the hand last moved is
    added to its use) and the next seat's runs from ``now``."""
    if not hand.clock or "since" not in hand.clock:
        return
    spent = max(0.0, now - _since(hand))
    used = hand.clock.setdefault("used", {})
    used[seat.name] = int(used.get(seat.name, 0)) + round(1000 * spent)
    hand.clock["since"] = now


def claim_moved(
    hand: rows.HandRow,
    seat: Seat,
    kind: str,
    to_act: Seat | None,
    waiting: list[str] | None,
    now: float,
) -> None:
    """The clock after a ``claim`` or a ``claim_answer`` by ``seat`` at ``now`` (``waiting``:
    the adversaries the claim still waits for, ``None`` once it is settled). While a claim
    waits, the seat to act's clock stops (it is charged up to the claim) and the clocks of
    the adversaries still to answer run, each from the claim; an answer charges its seat
    with the time since the claim; a claim settled (refused, or accepted by both) starts
    the seat to act's clock again."""
    if not hand.clock or "since" not in hand.clock:
        return
    pending = hand.clock.get("claim")
    if kind == "claim" and waiting is not None:
        if to_act is not None:
            charge(hand, to_act, now)
        hand.clock["claim"] = {"since": now, "waiting": list(waiting)}
        return
    if kind != "claim_answer" or pending is None:
        return
    used = hand.clock.setdefault("used", {})
    spent = max(0.0, now - float(pending["since"]))
    used[seat.name] = int(used.get(seat.name, 0)) + round(1000 * spent)
    if waiting is None:
        del hand.clock["claim"]
        hand.clock["since"] = now
    else:
        pending["waiting"] = [s for s in pending["waiting"] if s != seat.name]


def used_ms(hand: rows.HandRow, seat: Seat, to_act: Seat | None, now: float) -> int:
    """The time ``seat`` has used on the hand at ``now`` (its clock running if it is to act,
    or, while a claim waits, if it is to answer the claim)."""
    used = int(hand.clock.get("used", {}).get(seat.name, 0))
    claim = hand.clock.get("claim")
    if claim is not None:
        if seat.name in claim["waiting"]:
            used += round(1000 * max(0.0, now - float(claim["since"])))
        return used
    if seat == to_act and "since" in hand.clock:
        used += round(1000 * max(0.0, now - _since(hand)))
    return used


def apply_event(clock: dict[str, Any], kind: str, body: Mapping[str, Any]) -> None:
    """The clock after one of its logged events (a warning or an expiry, naming a seat)."""
    field = {"clock_warning": "warned", "clock_expired": "expired"}[kind]
    seats = clock.setdefault(field, [])
    if body["seat"] not in seats:
        seats.append(body["seat"])


def public_clock(hand: rows.HandRow, to_act: Seat | None, now: float) -> dict[str, Any] | None:
    """What a table shows of the clock (``None`` at a table without one): the limit and
    warning, each seat's time remaining at ``now`` (ms), the seat whose clock runs (none
    while a claim waits), the seats whose clocks run while a claim waits for their answer
    (``answering``), the seats warned and those the house plays."""
    if not hand.clock:
        return None
    limit = int(hand.clock["limit_ms"])
    live = hand.phase in ("calling", "playing")
    claim = hand.clock.get("claim") if live else None
    running = to_act if live and claim is None else None
    return {
        "limit_ms": limit,
        "warning_ms": int(hand.clock["warning_ms"]),
        "remaining_ms": {s.name: limit - used_ms(hand, s, running, now) for s in Seat},
        "running": None if running is None else running.name,
        "answering": [] if claim is None else list(claim["waiting"]),
        "warned": list(hand.clock.get("warned", [])),
        "expired": list(hand.clock.get("expired", [])),
        "house": {s: list(c) for s, c in hand.clock.get("house", {}).items()},
        "now": round(1000 * now),
    }
