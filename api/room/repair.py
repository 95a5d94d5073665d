"""Repairs, part of the room: voiding a ceremony that cannot finish, and rows the log is
ahead of. They take the room as a :class:`Repairable`: the public steps of
:class:`api.room.Room` they reuse, and nothing else (this module imports no room).

:func:`void` ends a hand whose ceremony cannot finish: an administrator's call, or
:func:`expire` once the ceremony has waited ``ceremony_timeout`` seconds for a seat.

An action is appended to the log first and written to the hand's row after. A crash
between the two leaves the log ahead; at the end of a hand the log then holds the last
card, the server's reveal, the ``end`` event and the next hand's opening while the rows
know none of them. Nothing is lost: the log is the hand's history, every seed is in it
once the hand is over, the record and the report are recomputed from it (the ``end``
event's ``record_sha256`` must match), and the next hand's server seed is derived, not
drawn (:meth:`api.hand_log.HandLog.server_seed`), so its logged commitment can be opened.

:func:`catch_up` replays a hand's logged events onto its row with the same checks as a
live request and, at the end of a hand or after a void, writes the report and the next
hand's row; any host runs it on demand for one hand when it finds the log ahead of that
hand's row (an action refused against the row, a void), whoever wrote the log.
:func:`recover` runs it over every unfinished hand when the service starts. Whatever
does not replay (an event the rules refuse, a record whose hash differs, a commitment
the derived seed does not open) is refused with 409 for an operator, never guessed.
"""

from __future__ import annotations

import hashlib
import logging
from contextlib import AbstractContextManager
from datetime import datetime
from typing import Any, Protocol

from api import ceremony, clock, rows
from api.config import Config
from api.database import Connection, Database
from api.errors import Conflict, WrongPhase
from api.hand_log import SERVER_ACTOR, HandLog
from api.handstate import PLAYER_KINDS, RULES_KINDS, next_start
from api.room.owner import TableOwner
from audit.errors import FairplayError, NotFoundError, StateConflict
from audit.log.errors import LogChainBroken
from audit.log.events import canonical_json, event_hash
from audit.log.schemas import CLOCK_TYPES
from audit.rules.cards import Seat
from audit.rules.play import HandState

__all__ = ["Repairable", "catch_up", "expire", "recover", "void"]

log = logging.getLogger(__name__)


class Repairable(Protocol):
    """The room's steps the repairs reuse (:class:`api.room.Room` is one)."""

    @property
    def db(self) -> Database: ...
    @property
    def config(self) -> Config: ...
    @property
    def hand_log(self) -> HandLog: ...
    @property
    def owner(self) -> TableOwner: ...

    def now(self) -> str: ...

    def table(self, conn: Connection, table_id: str) -> rows.Table: ...

    def hand_lock(self, key: tuple[str, int]) -> AbstractContextManager[object]: ...

    def forget(self, key: tuple[str, int]) -> None: ...

    def accept(
        self, table: rows.Table, hand: rows.HandRow, seat: Seat, kind: str, event: dict[str, Any]
    ) -> HandState | None: ...

    def log_event(self, hand: rows.HandRow, event: dict[str, Any]) -> None: ...

    def server_event(self, hand: rows.HandRow, kind: str, body: dict[str, Any]) -> None: ...

    def open_hand(
        self, table: rows.Table, number: int, start: dict[str, Any], dealer: Seat, pack: int
    ) -> rows.HandRow: ...

    def following(self, table: rows.Table, hand: rows.HandRow) -> rows.HandRow | None: ...


def _refuse(hand: rows.HandRow, seq: int, kind: str, why: str) -> Conflict:
    return Conflict(
        f"hand {hand.number}'s log is ahead of the service at seq {seq} ({kind}): {why}; "
        "an operator must repair it",
        details={"seq": seq},
    )


def catch_up(
    room: Repairable, conn: Connection, table: rows.Table, hand: rows.HandRow
) -> rows.HandRow:
    """Apply the hand's logged events the row has not seen; returns the row as stored."""
    before = hand.event_count
    for item in room.hand_log.hand_events(table.id, hand.number)[before:]:
        ev = item["event"]
        kind, seq, body = ev["type"], ev["seq"], ev["body"]
        if ev["prev"] != hand.last_hash:
            raise _refuse(hand, seq, kind, "the chain does not follow the row")
        if kind in PLAYER_KINDS:
            seat = table.seat_of(ev["actor"])
            if seat is None and ev["actor"] == SERVER_ACTOR and kind in RULES_KINDS:
                seat = Seat.parse(body.get("seat"))  # the house's, after the seat's expiry
            if seat is None:
                raise _refuse(hand, seq, kind, "the actor is not seated")
            room.accept(table, hand, seat, kind, ev)
        elif kind in CLOCK_TYPES and hand.clock and hand.phase in ("calling", "playing"):
            clock.apply_event(hand.clock, kind, body)
            room.log_event(hand, ev)
        elif kind == "server_reveal" and hand.phase == "over":
            if body.get("seed") != hand.server_seed:
                raise _refuse(hand, seq, kind, "the revealed seed is not the hand's")
            room.log_event(hand, ev)
        elif kind == "end" and hand.phase == "over" and hand.end_report is not None:
            assert hand.record is not None
            digest = hashlib.sha256(canonical_json(hand.record)).hexdigest()
            if body.get("record_sha256") != digest:
                raise _refuse(hand, seq, kind, "the replayed record is not the one logged")
            hand.report_id = str(body.get("report"))
            hand.finished_at = room.now()
            hand.end_score = next_start(hand.end_report)
            room.log_event(hand, ev)
        elif kind == "void" and ceremony.in_ceremony(hand.phase):
            if body.get("server_seed") != hand.server_seed:
                raise _refuse(hand, seq, kind, "the revealed seed is not the hand's")
            hand.phase = ceremony.voided(hand.phase)
            hand.finished_at = room.now()
            room.log_event(hand, ev)
        else:
            raise _refuse(hand, seq, kind, f"not expected in phase {hand.phase}")
    hand.pending = []
    room.forget((table.id, hand.number))
    if hand.event_count == before:
        return hand
    ended = hand.phase == "void" or (hand.phase == "over" and hand.report_id is not None)
    following = _following(room, table, hand) if ended else None
    if ended and following is None and room.hand_log.head(table.id, hand.number + 1):
        raise Conflict(
            f"hand {hand.number + 1} is logged but the service opens no hand after hand "
            f"{hand.number}; an operator must repair it",
            details={"hand": hand.number + 1},
        )
    with conn.transaction():
        if not rows.update_hand(conn, hand, before):
            return rows.get_hand(conn, table.id, hand.number)  # repaired meanwhile
        if hand.phase == "over" and hand.end_report is not None and hand.record is not None:
            assert hand.report_id is not None
            rows.insert_report(
                conn,
                hand.report_id,
                table_id=table.id,
                hand_number=hand.number,
                report=hand.end_report,
                record=hand.record,
                players=list(table.seats.values()),
                created_at=hand.finished_at or room.now(),
            )
        if following is not None:
            rows.set_hand_count(conn, table.id, following.number)
            rows.insert_hand(conn, following)
    if ended:
        room.hand_log.sign_checkpoint()  # the writer side: the end of a hand is signed
    log.warning("hand %s/%d brought up to its log at seq %d", table.id, hand.number, before)
    if ended:
        try:  # a tournament table's last hand of the round: the event moves on
            room.owner.hand_ended(table.id)
        except FairplayError as exc:  # the hand stands; the next hand or a restart moves it
            log.error("tournament of table %s not moved on: %s", table.id, exc)
    return hand


def _following(room: Repairable, table: rows.Table, hand: rows.HandRow) -> rows.HandRow | None:
    """The next hand's row, rebuilt from its logged opening (appended with the end); for
    a tournament table, its next board or hand (``None`` when its round is played)."""
    number = hand.number + 1
    if hand.phase == "over":
        following = room.following(table, hand)
        if following is None:
            return None
        row = following
    else:  # void: the same dealer deals again from the same pack
        row = room.open_hand(table, number, hand.start_score, hand.dealer, hand.pack)
    logged = room.hand_log.hand_events(table.id, number)
    if not logged:  # pragma: no cover - the opening is appended with the end, atomically
        room.hand_log.append(row.pending)
        row.pending = []
        return row
    opening, derived = logged[0]["event"], row.pending[0]
    if (opening["type"], opening["body"]) != (derived["type"], derived["body"]):
        raise Conflict(
            f"hand {number}'s logged opening is not the one the service derives; "
            "an operator must repair it",
            details={"hand": number},
        )
    row.pending = []
    row.event_count = 1
    row.last_hash = event_hash(opening)
    return row


def recover(room: Repairable) -> int:
    """Catch up every unfinished hand whose log is ahead of its row; the number caught up.

    Run when the service starts. Several workers may run it at once: each write is a
    compare-and-set on the row's event count, so one of them wins and the others see
    the hand already repaired.
    """
    conn = room.db.connection()
    repaired = 0
    for table_id, number in rows.unfinished_hands(conn):
        if (
            room.hand_log.head(table_id, number)
            <= rows.get_hand(conn, table_id, number).event_count
        ):
            continue
        key = (table_id, number)
        with room.hand_lock(key):
            try:
                table = rows.get_table(conn, table_id)
                hand = rows.get_hand(conn, table_id, number)
                catch_up(room, conn, table, hand)
                repaired += 1
            except (StateConflict, NotFoundError) as exc:
                log.error("hand %s/%d not recovered: %s", table_id, number, exc.message)
    return repaired


def void(room: Repairable, table_id: str, number: int, reason: str) -> dict[str, Any]:
    """Void a hand whose ceremony cannot finish (a seat that never commits or reveals).

    The void is logged with the server's seed (so the partial transcript can be
    checked) and the hand number is used up; the same dealer deals the next hand
    from the same pack, under a fresh ceremony. A dealt hand cannot be voided. The hand
    is judged as the log has it: a row the log is ahead of (another host died between
    its append and its row write, or is between the two) is brought up to the log first.
    """
    conn = room.db.connection()
    table = room.table(conn, table_id)
    key = (table_id, number)
    with room.hand_lock(key):
        for _ in range(3):  # each retry follows an event another host logged meanwhile
            hand = rows.get_hand(conn, table_id, number)
            if room.hand_log.head(table_id, number) > hand.event_count:
                room.forget(key)
                hand = catch_up(room, conn, table, hand)
            done = _void_once(room, conn, table, hand, reason)
            if done is not None:
                return done
        raise Conflict("the hand kept moving on meanwhile; read it again")


def _void_once(
    room: Repairable, conn: Connection, table: rows.Table, hand: rows.HandRow, reason: str
) -> dict[str, Any] | None:
    """Log and write the void of ``hand``; ``None`` if another host's event came first."""
    void_phase = ceremony.voided(hand.phase)
    number = hand.number
    answer = {"table": table.id, "hand": number, "phase": "void", "next_hand": number + 1}
    before = hand.event_count
    c = hand.ceremony
    done = c["commitments"] if hand.phase == "committing" else c["seeds"]
    room.server_event(
        hand,
        "void",
        {
            "reason": reason,
            "phase": hand.phase,
            "missing": [s.name for s in Seat if s.name not in done],
            "server_seed": hand.server_seed,
        },
    )
    hand.phase = void_phase
    hand.finished_at = room.now()
    following = room.open_hand(table, number + 1, hand.start_score, hand.dealer, hand.pack)
    try:
        room.hand_log.append(hand.pending + following.pending)
    except LogChainBroken:
        return None
    with conn.transaction():
        written = rows.update_hand(conn, hand, before)
        if written:
            rows.set_hand_count(conn, table.id, following.number)
            rows.insert_hand(conn, following)
    room.forget((table.id, number))
    if not written:  # logged; another host brought the row up to the log first
        catch_up(room, conn, table, rows.get_hand(conn, table.id, number))
    return answer


def expire(room: Repairable, hand: rows.HandRow) -> bool:
    """Void ``hand`` if its ceremony has waited longer than the configured timeout.

    The clock starts at the hand's opening, so a hand nobody comes to commit to (a
    table its players left) does not wait for ever, and starts again at the first
    commitment, so a ceremony once begun has the whole timeout to finish; it then waits
    for the missing commitments and seeds. Called when a hand is read or a seat commits
    or reveals, so the void is logged the first time anyone looks after the deadline.
    ``True`` when the hand is (now) void.
    """
    timeout = room.config.ceremony_timeout
    since = hand.ceremony.get("since") or hand.started_at
    if timeout <= 0 or not ceremony.in_ceremony(hand.phase) or not isinstance(since, str):
        return False
    started = datetime.fromisoformat(since.replace("Z", "+00:00")).timestamp()
    if room.config.clock() - started <= timeout:
        return False
    try:
        void(room, hand.table_id, hand.number, f"the ceremony timed out after {timeout} s")
    except (StateConflict, WrongPhase):
        return False  # finished meanwhile, or voided by another request
    return True
