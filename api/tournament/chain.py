"""An event's chain of the log and its row: what every step of an event goes through.

Every state change of an event is an event of its own chain first (``table`` = the
event id, hand :data:`CHAIN`): :meth:`Desk.event` validates nothing, it signs the event,
appends it at the head the row holds, and applies it to the row's document with
:func:`audit.tournament.online.apply`, the function a verifier folds the chain with.
The row (:mod:`api.tournament.event_rows`) is then saved (:meth:`Desk.keep`); a row
that a crash or another request left behind its chain is brought up to it
(:meth:`Desk.caught_up`).
"""

from __future__ import annotations

import contextlib
import logging
import threading
from collections.abc import Callable
from typing import Any, Protocol

from api import faults, rows
from api.beacon import BeaconSource
from api.config import Config
from api.database import Connection, Database
from api.directors import granted
from api.hand_log import HandLog
from api.tournament import event_rows
from api.tournament.event_rows import BEFORE_START, ENTRANT_KEYS, WITH_ROWS
from audit.errors import StateConflict
from audit.log.errors import LogChainBroken
from audit.log.events import event_hash
from audit.rules.cards import Seat
from audit.tournament import online
from audit.tournament.directors import check_ruling
from shuffle.tournament import BoardDeal

__all__ = ["CHAIN", "Desk", "Moved", "RoomSteps", "Ruling", "entrant_chain"]

log = logging.getLogger("api.tournament")

CHAIN = "event"
"""The hand of the event's own chain in the log."""


def entrant_chain(player: str) -> str:
    """The hand of an entrant's chain (its registration, then its reveal)."""
    return f"entrant-{player}"


class RoomSteps(Protocol):
    """What an event asks of the room where its tables' hands are played."""

    def now(self) -> str: ...

    def open_hand(
        self, table: rows.Table, number: int, start: dict[str, Any], dealer: Seat, pack: int
    ) -> rows.HandRow: ...

    def open_board(
        self, table: rows.Table, number: int, event: dict[str, Any], rnd: int, board: BoardDeal
    ) -> rows.HandRow: ...

    def forget(self, key: tuple[str, int]) -> None: ...


Ruling = dict[str, Any] | None
"""A director's signed request a ruling answers (its event's ``by``), ``None`` for the
operator's (the admin token)."""


class Moved(StateConflict):
    """The event's chain moved past the row's head: another request's event came first."""


class Desk:
    """One process's access to its events: the database, the log, the room, the clock.

    ``on_end`` is told of every event that is over (its certificate and analysis are built then)."""

    def __init__(
        self,
        room: RoomSteps,
        db: Database,
        hand_log: HandLog,
        config: Config,
        on_end: Callable[[str], None],
        beacon_source: BeaconSource | None,
        max_entrants: int,
    ) -> None:
        self.room = room
        self.db = db
        self.hand_log = hand_log
        self.config = config
        self.on_end = on_end
        self.beacon_source = beacon_source
        """The drand chain new duplicate events are dealt from (version 2); ``None``: v1."""
        self.max_entrants = max_entrants
        self.lock = threading.RLock()

    def now(self) -> str:
        return self.room.now()

    def service_seed(self, tid: str) -> bytes:
        """The tournament seed: derived from the log key, secret until the event ends."""
        return self.hand_log.signer.derive_secret(
            f"cayenne-fairplay tournament seed v1\x00{tid}".encode()
        )

    # ------------------------------------------------------------------ the row

    def load(self, conn: Connection, tid: str, entrants: bool = True) -> dict[str, Any]:
        """The event's row; until its deal with its entrants and reveals from their rows
        (``entrants=False``: without them, for the steps that read one entrant only)."""
        doc = event_rows.read(conn, tid)
        if doc["phase"] in WITH_ROWS:
            if doc.get("order"):  # a row written before migration 7: its entrants to rows
                self._adopt(conn, doc)
                return self.load(conn, tid, entrants)
            for key in ENTRANT_KEYS:
                doc.pop(key, None)
            if entrants:
                event_rows.fill(conn, doc)
        return doc

    def _adopt(self, conn: Connection, doc: dict[str, Any]) -> None:
        """Move the entrants and reveals a document written before migration 7 holds to
        their rows (once: the document is saved without them)."""
        logged = {
            e["event"]["actor"]: e["index"]
            for e in self.hand_log.log.first_events(doc["id"], entrant_chain(""))
        }
        for pid in doc["order"]:
            reveal = doc.get("reveals", {}).get(pid)
            event_rows.insert_entrant(
                conn, doc["id"], pid, logged.get(pid, 0), doc["entrants"][pid], reveal
            )
        with contextlib.suppress(StateConflict):  # another request saved it meanwhile
            event_rows.save(conn, {k: v for k, v in doc.items() if k not in ENTRANT_KEYS})

    def entrant_row(self, conn: Connection, tid: str, index: int, ev: dict[str, Any]) -> None:
        """The row of an entrant whose registration the log holds at ``index``."""
        body = ev["body"]
        entrant = {
            "partner": body["partner"],
            "commitment": body["commitment"],
            "registration": event_hash(ev),
        }
        event_rows.insert_entrant(conn, tid, ev["actor"], index, entrant)

    def _entrants_caught_up(self, conn: Connection, tid: str) -> bool:
        """Give every registration the log holds its row (a crash between the log and the
        row, another request's); whether any was missing. Two counts when none is."""
        logged = self.hand_log.log.count_first_events(tid, entrant_chain(""))
        if event_rows.count_entrants(conn, tid) >= logged:
            return False
        for e in self.hand_log.log.first_events(tid, entrant_chain("")):
            self.entrant_row(conn, tid, e["index"], e["event"])
        log.warning("tournament %s: entrants brought up to the log", tid)
        return True

    # ------------------------------------------------------------------ the chain

    def event(
        self,
        conn: Connection,
        doc: dict[str, Any],
        kind: str,
        body: dict[str, Any],
        by: Ruling = None,
    ) -> dict[str, Any]:
        """Sign and append one event of the tournament's own chain, at the head the row
        ``doc`` holds (``doc["head"]``, moved on to the new event), and apply it to
        ``doc`` (:func:`audit.tournament.online.apply`). The caller has validated it.

        Like a hand's action, the event takes its place from the row it was judged
        against, not from the log: if another request (another worker or host) logged an
        event since the row was read, the log refuses this one, the row is brought up to
        the log and :class:`Moved` (409) is raised, so a step is never taken twice.
        """
        tid = doc["id"]
        seq, prev = doc["head"]
        if by is not None:  # a director's ruling: his signed request with it, checked
            body = {**body, "by": by}
            check_ruling(tid, kind, body, None, granted(self.hand_log))
        signed = self.hand_log.server_event(tid, CHAIN, seq, prev, kind, body, self.now())
        try:
            self.hand_log.append([signed])
        except LogChainBroken:
            self.caught_up(conn, self.load(conn, tid))
            raise Moved(
                "the tournament moved on meanwhile; read it again", details={"tournament": tid}
            ) from None
        doc["head"] = [seq + 1, event_hash(signed)]
        online.apply(doc, kind, signed["body"])
        faults.at(kind)  # the tests' crash between the event and the row (api/faults.py)
        return signed

    def keep(self, conn: Connection, doc: dict[str, Any]) -> None:
        """Save the row of an event this request logged. If another request saved the
        row meanwhile (it brought the row up to the log, or kept an entrant), the log
        decides: the row is brought up to it, this event included."""
        try:
            event_rows.save(conn, doc)
        except StateConflict:
            self.caught_up(conn, self.load(conn, doc["id"]))

    def current(self, conn: Connection, tid: str) -> dict[str, Any]:
        """The event's row, brought up to its log first if a crash (or another request
        between its append and its row write) left the row behind."""
        return self.caught_up(conn, self.load(conn, tid))

    def caught_up(
        self, conn: Connection, doc: dict[str, Any], entrants: bool = True
    ) -> dict[str, Any]:
        """``doc`` with what its log holds and it does not (see
        :func:`api.tournament.recovery.recover`); with ``entrants``, every registration
        the log holds has its row and is in ``doc`` (a registration or a reveal reads its
        own entrant's row only)."""
        tid = doc["id"]
        if entrants and doc["phase"] in BEFORE_START and self._entrants_caught_up(conn, tid):
            event_rows.fill(conn, doc)
        for _ in range(10):
            link = self.hand_log.log.next_link(tid, CHAIN)
            if doc.get("head") == list(link):
                return doc
            items = self.hand_log.log.hand_events(tid, CHAIN)
            chain = [e["event"] for e in items]
            head = [len(chain), event_hash(chain[-1])]
            items = sorted([*items, *self.leaves(tid)], key=lambda e: int(e["index"]))
            logged = online.fold(tid, online.chain_of(tid, items))
            behind = {k: v for k, v in logged.items() if k != "id" and doc.get(k) != v}
            doc |= behind
            doc["head"] = head
            try:
                event_rows.save(conn, doc)
            except StateConflict:  # another request wrote the row meanwhile: read it again
                doc = self.load(conn, tid, entrants)
                continue
            if behind:
                log.warning(
                    "tournament %s brought up to its log: %s", tid, ", ".join(sorted(behind))
                )
            if behind.get("phase") == "over":  # the end is logged: publish the tables
                self.publish(conn, tid)
            return doc
        raise StateConflict("the tournament kept moving on meanwhile; read it again")

    def leaves(self, tid: str) -> list[dict[str, Any]]:
        """The entrants' own withdrawals the log holds (``{index, event}``, log order):
        each its entrant's chain's event 1, folded with the event's own chain."""
        return [
            e
            for e in self.hand_log.log.events_at(tid, entrant_chain(""), 1)
            if e["event"]["type"] == online.LEAVE
        ]

    def publish(self, conn: Connection, tid: str) -> None:
        """The event is over: its tables' hands are readable by anyone; sign the log."""
        event_rows.publish_tables(conn, tid)
        self.hand_log.sign_checkpoint()
        self.on_end(tid)  # its certificate bundle and analysis, built in the background
