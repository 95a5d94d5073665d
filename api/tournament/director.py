"""The director's actions: substitute a player, withdraw a pair, give an adjusted score,
void a board (an event under way), and remove an entrant (before the start). Each is
checked here, logged with its reason as ``tournament_<action>`` and applied by
:func:`audit.tournament.online.apply`."""

from __future__ import annotations

from typing import Any

from api import rows
from api.database import Connection
from api.tournament import checks, documents, rounds
from api.tournament.chain import Desk, Ruling
from api.tournament.checks import bad, integer
from api.tournament.event_rows import BEFORE_START
from audit.errors import NotFoundError, StateConflict, WrongPhaseError
from audit.tournament import online
from audit.tournament.event import DUPLICATE
from audit.tournament.matchpoints import Adjustment

__all__ = ["act"]


def act(desk: Desk, tid: str, action: str, body: Any, by: Ruling = None) -> dict[str, Any]:
    """substitute, adjust, withdraw or void_board: a logged event with its reason."""
    if not isinstance(body, dict):
        raise bad("$", "the body must be an object")
    reason = checks.reason(body)
    if action == "remove":
        return _remove(desk, tid, body, reason, by)
    with desk.lock:
        conn = desk.db.connection()
        doc = desk.current(conn, tid)
        if doc["phase"] not in ("revealing", "playing"):
            raise WrongPhaseError(f"the tournament is {doc['phase']}; no director action now")
        if action == "substitute":
            event = _substitute(conn, doc, body)
        elif action == "withdraw":
            event = _withdraw(doc, body)
        elif action == "adjust":
            adjusted = _adjust(doc, body)
            if adjusted is None:
                return desk.load(conn, tid)  # given already: a retry changes nothing
            event = adjusted
        elif action == "void_board":
            event = _void_board(doc, body)
        else:  # pragma: no cover - the routes name the actions
            raise NotFoundError(f"no director action {action!r}")
        event["reason"] = reason
        desk.event(conn, doc, f"tournament_{action}", event, by)
        desk.keep(conn, doc)
        if action == "withdraw":
            rounds.advance(desk, conn, tid)
        return desk.load(conn, tid)


def _remove(
    desk: Desk, tid: str, body: dict[str, Any], reason: str, by: Ruling = None
) -> dict[str, Any]:
    """The director removes an entrant before the start (``{entrant, reason}``),
    logged as ``tournament_remove``: it is in no pair, and may not register again in
    this event (its chain's registration is taken). Strangers who entered naming each
    other, or a pair the director refuses, no longer hold the event's places. Once
    removed, the same request changes nothing."""
    pid = body.get("entrant")
    if not isinstance(pid, str):
        raise bad("entrant", "the player id of an entrant of this tournament")
    with desk.lock:
        conn = desk.db.connection()
        doc = desk.current(conn, tid)
        if pid in doc.get("removed", []):
            return desk.load(conn, tid)  # removed already: a retry
        if doc["phase"] not in BEFORE_START:
            raise WrongPhaseError(
                f"the tournament is {doc['phase']}; entrants are removed before the start"
            )
        if pid not in doc["entrants"]:
            raise bad("entrant", f"{pid!r} has not entered this tournament")
        desk.event(conn, doc, "tournament_remove", {"entrant": pid, "reason": reason}, by)
        desk.keep(conn, doc)
        return desk.load(conn, tid)


def _pair_number(doc: dict[str, Any], body: dict[str, Any]) -> int:
    pair = integer(body, "pair", 1, len(doc["pair_list"]) or 1)
    if not doc["pair_list"]:
        raise WrongPhaseError("the pairs are fixed when the tournament starts")
    return pair


def _substitute(conn: Connection, doc: dict[str, Any], body: dict[str, Any]) -> dict[str, Any]:
    from_round = doc["round"] + 1
    pair = _pair_number(doc, body)
    out, new = body.get("out"), body.get("in")
    if out not in online.members(doc, pair, from_round):
        raise bad("out", f"{out!r} does not play in pair {pair}")
    if not isinstance(new, str):
        raise bad("in", "a registered player's id")
    try:
        rows.get_player(conn, new)
    except checks.MISSING:
        raise bad("in", f"no player {new!r}") from None
    pairs = range(1, len(doc["pair_list"]) + 1)
    if any(new in online.members(doc, p, from_round) for p in pairs):
        raise bad("in", f"{new} already plays in this tournament")
    played_for = {
        t[side]
        for r in doc["rounds_played"]
        for t in r["tables"]
        for side, seats in (("ns", "NS"), ("ew", "EW"))
        if new in (t["seats"][seats[0]], t["seats"][seats[1]])
    }
    if played_for - {pair}:  # the boards he played come round to that pair again
        raise bad(
            "in",
            f"{new} has played for pair {min(played_for - {pair})} in this "
            "tournament: in another pair he would meet boards he has played",
        )
    return {"pair": pair, "out": out, "in": new, "from_round": from_round}


def _withdraw(doc: dict[str, Any], body: dict[str, Any]) -> dict[str, Any]:
    pair = _pair_number(doc, body)
    if str(pair) in doc["withdrawn"] or pair in doc["absent"]:
        raise StateConflict(f"pair {pair} is already withdrawn")
    return {"pair": pair, "from_round": doc["round"] + 1}


def _adjust(doc: dict[str, Any], body: dict[str, Any]) -> dict[str, Any] | None:
    """The adjusted score's event; ``None`` when that very score is given already."""
    if doc["format"] != DUPLICATE:
        raise bad("$", "adjusted scores are given on duplicate boards")
    rnd = integer(body, "round", 1, doc["rounds"])
    table = integer(body, "table", 1, doc["tables"])
    board = integer(body, "board", 1, doc["rounds"] * doc["tables"] * 100)
    sitting = documents.sitting(doc, rnd, table)
    if sitting is None or board not in sitting["boards"]:
        raise bad("board", f"board {board} is not played at table {table} in round {rnd}")
    values = {a.value for a in Adjustment}
    for side in ("ns", "ew"):
        if body.get(side) not in values:
            raise bad(side, f"one of {sorted(values)}")
    event = {"round": rnd, "table": table, "board": board, "ns": body["ns"], "ew": body["ew"]}
    if any({k: a[k] for k in event} == event for a in doc["adjustments"]):
        return None
    return event


def _void_board(doc: dict[str, Any], body: dict[str, Any]) -> dict[str, Any]:
    if doc["format"] != DUPLICATE:
        raise bad("$", "boards are voided in a duplicate event")
    board = integer(body, "board", 1, doc["tables"] * doc["boards_per_round"])
    if board in doc["voided"]:
        raise StateConflict(f"board {board} is already void")
    return {"board": board}
