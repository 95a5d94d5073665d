"""After a crash: an event's row brought up to its logs, and the event moved on.

Each step of an event is logged first and written after, so a crash can leave the
event's row behind its logs: behind its own chain (registration opened or closed, the
beacon, the start, the deal, a round logged as begun or over, a director's action, the
end) or behind an entrant's chain (a registration). The row is brought up to the chains
(:meth:`api.tournament.chain.Desk.caught_up`: :func:`audit.tournament.online.fold`, the
function a verifier replays, and the registrations in log order); then the event moves
on as far as its tables allow (:func:`api.tournament.rounds.advance`).
"""

from __future__ import annotations

import logging
from typing import Any

from api.database import Connection
from api.tournament import event_rows, rounds
from api.tournament.chain import Desk
from audit.errors import DatabaseUnavailable, FairplayError

__all__ = ["follow", "recover"]

log = logging.getLogger("api.tournament")


def recover(desk: Desk) -> int:
    """Bring every event not over up to its log; the number of events repaired.

    Run when the service starts, after the hands' rows (:func:`api.room.repair.recover`):
    the deal once everyone revealed, a round's missing tables and first hands, the next
    round, the end. Any request that finds the log ahead of the row does the same first
    (:meth:`api.tournament.chain.Desk.current`).
    """
    conn = desk.db.connection()
    repaired = 0
    for tid in event_rows.event_ids(conn):
        try:
            with desk.lock:
                repaired += _recover(desk, conn, tid)
        except FairplayError as exc:
            log.error("tournament %s not recovered: %s", tid, exc)
    return repaired


def _recover(desk: Desk, conn: Connection, tid: str) -> bool:
    doc = desk.load(conn, tid)
    if doc["phase"] == "over":
        desk.on_end(tid)  # builds a crash interrupted (or never began)
        return False
    version = doc["version"]
    desk.caught_up(conn, doc)
    rounds.advance(desk, conn, tid)
    return bool(desk.load(conn, tid)["version"] != version)


def follow(desk: Desk, tid: str) -> dict[str, Any]:
    """The event as :meth:`Desk.load` reads it, first brought up to its log and moved on
    if it is behind: a step logged and not saved, or one due and not taken (a host
    died between a round's last card and the next round's first board). Any host a
    reader asks repairs it, as the room does a hand, so that no restart is needed.
    """
    conn = desk.db.connection()
    doc = desk.load(conn, tid)
    if not rounds.due(desk, conn, doc):
        return doc
    try:
        with desk.lock:
            rounds.advance(desk, conn, tid)
    except DatabaseUnavailable:
        raise
    except FairplayError as exc:  # the read stands; the next one tries again
        log.error("tournament %s not moved on: %s", tid, exc)
    return desk.load(conn, tid)
