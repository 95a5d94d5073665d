"""The room of one process: the tables' hands, from a table's creation to the player's
signed event checked, logged and written (the order of checks: :mod:`api.room`).

:class:`Room` is wired once in ``create_app`` and composes the room's parts: the hands'
openings and the server's events (:mod:`api.room.opening`), this process's caches
(:mod:`api.room.states`), the actions' checks and effects (:mod:`api.room.actions`) and
the repairs (:mod:`api.room.repair`). Here: a table's creation, an event's way from the
request to the log and the rows, and the end of a hand.
"""

from __future__ import annotations

import hashlib
import hmac
import logging
from collections.abc import Callable
from typing import Any

from api import clock, faults, rows
from api.cache import Bounded
from api.changes import Changes
from api.config import Config
from api.database import Connection, Database
from api.errors import BadRequest, Forbidden, InvalidSignature, ReplayedEvent
from api.hand_log import HandLog
from api.handstate import PLAYER_KINDS, ZERO_SCORE, next_start, ruleset_pattern, waiting_for
from api.room import repair
from api.room.actions import Actions
from api.room.opening import Openings
from api.room.owner import NoOwner, TableOwner
from api.room.states import MAX_CACHED, HandStates
from audit.errors import FairplayError
from audit.log.errors import EventError, LogChainBroken, LogSignatureInvalid
from audit.log.events import canonical_json, check_event, event_hash, verify_event
from audit.log.schemas import check_cayenne_event
from audit.rules.cards import Seat
from audit.rules.play import HandState

__all__ = ["Room"]

log = logging.getLogger("api.room")  # the name its lines have always carried

Finished = tuple[str, dict[str, Any], dict[str, Any], rows.HandRow | None]
"""A finished hand's report id, report, record and following hand (``None``: none)."""


class Room:
    """The room of one process: the hands' lives (see the module docstring)."""

    def __init__(
        self,
        db: Database,
        config: Config,
        hand_log: HandLog,
        owner: Callable[[Room], TableOwner] | None = None,
    ) -> None:
        """``owner`` makes, from the room, whoever owns some of its tables (the
        tournaments): the room and its owner each need the other, so the room makes it
        once, here, and never has it set afterwards."""
        self.db = db
        self.config = config
        self.hand_log = hand_log
        self.openings = Openings(config, hand_log, self.time_control)
        self.states = HandStates(hand_log)
        self.actions = Actions(self.openings, self.states)
        self._event_tables: Bounded[str, bool] = Bounded(MAX_CACHED)
        """Whether a table is a tournament's, per table."""
        self._controls: Bounded[str, tuple[dict[str, int] | None]] = Bounded(MAX_CACHED)
        """A table's time control (api/clock.py), per table."""
        self._chats: Bounded[str, bool] = Bounded(MAX_CACHED)
        """Whether a table has chat (api/chat.py), per table."""
        self.changes = Changes()
        """Woken after every logged action (server-sent event streams, house bots)."""
        # The steps the repairs and the tournaments reuse, as the parts define them.
        self.now = self.openings.now
        self.open_hand = self.openings.open_hand
        self.open_board = self.openings.open_board
        self.server_event = self.openings.server_event
        self.log_event = self.openings.log_event
        self.state = self.states.state
        self.snapshot = self.states.snapshot
        self.forget = self.states.forget
        self.hand_lock = self.states.hand_lock
        self.table = self.states.table
        self.accept = self.actions.accept
        self.record_of = self.actions.record_of
        self.owner: TableOwner = NoOwner() if owner is None else owner(self)
        """The owner of the event tables: their following hands and rounds."""

    # ------------------------------------------------------------------ tables

    def create_table(
        self,
        name: str,
        seats: dict[Seat, str],
        ruleset: dict[str, Any],
        first_dealer: Seat,
        table_id: str | None = None,
        clock: dict[str, int] | None = None,
        chat: bool = True,
    ) -> rows.Table:
        """Open a table and its hand 1 (``table_id``: the id a table of people was given
        when it was created, api/seatings.py; else a new one) under the time control
        ``clock`` (api/clock.py: copied into each of its hands' rows), or none, with chat
        or without (api/chat.py)."""
        conn = self.db.connection()
        ruleset_pattern(ruleset)
        if len(set(seats.values())) != 4:
            raise BadRequest("seats: four different players", details={"path": "seats"})
        for seat, pid in seats.items():
            try:
                rows.get_player(conn, pid)
            except FairplayError:
                raise BadRequest(
                    f"seats.{seat.name}: no player {pid!r}", details={"path": f"seats.{seat.name}"}
                ) from None
        table = rows.Table(
            id=table_id or rows.new_id("t"),
            name=name,
            ruleset=ruleset,
            seats=seats,
            first_dealer=first_dealer,
            hand_count=1,
            created_at=self.now(),
            clock=clock,
            chat=chat,
        )
        hand = self.open_hand(table, 1, ZERO_SCORE, first_dealer, 0)
        self.hand_log.append(hand.pending)
        with conn.transaction():
            rows.insert_table(conn, table)
            rows.insert_hand(conn, hand)
        return table

    def _event_table(self, table_id: str) -> bool:
        """Whether a table is a tournament's (it never changes: cached per process)."""
        known = self._event_tables.get(table_id)
        if known is None:
            known = self.owner.is_event_table(table_id)
            self._event_tables.put(table_id, known)
        return known

    def time_control(self, table_id: str) -> dict[str, int] | None:
        """An event table's time control, its event's (it never changes: cached per
        process); an ordinary table's own is in its row (``rows.Table.clock``)."""
        known = self._controls.get(table_id)
        if known is None:
            known = (self.owner.time_control(table_id),)
            self._controls.put(table_id, known)
        return known[0]

    def chat_on(self, table_id: str, table: rows.Table | None = None) -> bool:
        """Whether a table has chat: an event's table as its event says, an ordinary one
        as its creator chose (``table``: its row, when the caller has read it; it never
        changes: cached per process)."""
        known = self._chats.get(table_id)
        if known is None:
            known = self.owner.chat_setting(table_id)
            if known is None:
                row = table if table is not None else rows.get_table(self.db.connection(), table_id)
                known = row.chat
            self._chats.put(table_id, known)
        return known

    # ------------------------------------------------------------------ submit

    def submit(self, table_id: str, number: int, body: object) -> dict[str, Any]:
        """Check, log and apply one player-signed event; the hand's new head."""
        try:
            event = check_event(body)
        except EventError as exc:
            raise BadRequest(exc.message, details={"path": exc.message.split(":")[0]}) from None
        kind = event["type"]
        if kind not in PLAYER_KINDS:
            raise BadRequest(
                f"event.type: {kind!r} is not one of {list(PLAYER_KINDS)}",
                details={"path": "event.type"},
            )
        try:
            check_cayenne_event(event)  # exactly the type's fields, bounded, time in UTC
        except EventError as exc:
            raise BadRequest(exc.message, details=exc.details) from None
        if event["origin"] != self.hand_log.origin:
            raise BadRequest(
                f"event.origin: this log is {self.hand_log.origin!r}",
                details={"path": "event.origin"},
            )
        if event["table"] != table_id or event["hand"] != str(number):
            raise BadRequest(
                "event.table, event.hand: not this table and hand", details={"path": "event.hand"}
            )
        conn = self.db.connection()
        table = self.table(conn, table_id)
        actor = event["actor"]
        seat = table.seat_of(actor)
        if seat is None:
            raise Forbidden(
                f"{actor} is not seated at table {table_id}", details={"path": "event.actor"}
            )
        try:
            verify_event(event, self.states.player_key(conn, actor))
        except LogSignatureInvalid as exc:
            raise InvalidSignature(exc.message, details={"path": "event.signature"}) from None
        if kind in ("commit", "reveal"):
            repair.expire(self, rows.get_hand(conn, table_id, number))
        with self.hand_lock((table_id, number)):
            result = self._submit_locked(conn, table, seat, kind, event)
        self.changes.touch()
        return result

    def _submit_locked(
        self, conn: Connection, table: rows.Table, seat: Seat, kind: str, event: dict[str, Any]
    ) -> dict[str, Any]:
        """Judge the event against the hand's row; if it is refused while the log is ahead
        of the row (a host died between its append and its row write), bring the row up
        to the log and judge again: an event the log already holds (a retry, or the same
        event sent to two hosts) answers with its result instead of a refusal."""
        table_id, number = table.id, int(event["hand"])
        key = (table_id, number)
        hand = self.states.take_row(key)
        if hand is not None and self._event_table(table_id):
            # A tournament's hand is voided by the round's end in any process: its row is
            # read, never a cached copy that would still take plays after the round.
            hand = None
        if hand is None or event["seq"] != hand.event_count or event["prev"] != hand.last_hash:
            # Not cached, or another process moved the hand on: read it. (A stale cached
            # row cannot let a wrong event through: the log accepts an event only at its
            # hand's true head, and the state at a given head is the same everywhere.)
            hand = rows.get_hand(conn, table_id, number)
        try:
            return self._judge(conn, table, seat, kind, event, hand)
        except FairplayError:
            hand = rows.get_hand(conn, table_id, number)
            if self.hand_log.head(table_id, number) > hand.event_count:
                self.forget(key)
                hand = repair.catch_up(self, conn, table, hand)
            elif not self._logged_already(event):
                raise  # the row is the log's: the refusal stands
        if self._logged_already(event):
            if hand.phase == "over":
                # The hand's end is logged (a resent last card): the host that logged it
                # may have died before moving its event on; this one does (issue 24).
                try:
                    self.owner.hand_ended(table_id)
                except FairplayError:
                    log.exception("moving tournament of %s on", table_id)
            return self._result(event, hand)
        return self._judge(conn, table, seat, kind, event, hand)

    def _judge(
        self,
        conn: Connection,
        table: rows.Table,
        seat: Seat,
        kind: str,
        event: dict[str, Any],
        hand: rows.HandRow,
    ) -> dict[str, Any]:
        """Check the event against ``hand``, log it and write the row; the new head."""
        key = (table.id, hand.number)
        if event["seq"] != hand.event_count or not hmac.compare_digest(
            str(event["prev"]), hand.last_hash
        ):
            raise ReplayedEvent(
                "stale or replayed event: seq and prev must name the hand's next event",
                details={"expected_seq": hand.event_count, "expected_prev": hand.last_hash},
            )
        before = hand.event_count
        try:
            if kind in ("call", "play"):
                clock.charge(hand, seat, self.config.clock())  # the seat's time stops
            state = self.accept(table, hand, seat, kind, event)
            if hand.phase in ("calling", "playing"):
                clock.start(hand, self.config.clock())  # dealt: the first seat's time runs
            if kind in ("claim", "claim_answer") and state is not None:
                pending = state.pending_claim
                waiting = None if pending is None else pending.waiting_for
                clock.claim_moved(hand, seat, kind, state.to_act, waiting, self.config.clock())
            finished = (
                self._finish(table, hand, state) if state is not None and state.is_over else None
            )
            try:
                # One unit: the action and, at the end of a hand, the server's reveal, the
                # end and the next hand's opening; the log re-checks every chain.
                following = finished[3] if finished else None
                self.hand_log.append(hand.pending + (following.pending if following else []))
            except LogChainBroken as exc:
                # Another host's event took this seq, or this very event did (the same
                # event sent twice): the caller brings the row up to the log and judges.
                raise ReplayedEvent(f"stale or replayed event: {exc.message}") from None
            if not self._write(conn, table, hand, before, kind, finished):
                # The event is logged; another host brought the row up to the log first
                # (it saw the log ahead): the action stands, the row follows the log.
                self.forget(key)
                fresh = repair.catch_up(self, conn, table, rows.get_hand(conn, *key))
                return self._result(event, fresh)
        except BaseException:
            self.forget(key)
            raise
        if state is not None and not state.is_over:
            self.states.remember(key, hand.event_count, state)
        elif hand.phase == "over":
            self.forget(key)
        if hand.phase != "over":
            hand.pending = []
            self.states.keep_row(key, hand)
        if finished is not None:
            try:
                self.owner.hand_ended(table.id)
            except FairplayError:  # the hand stands; the next reader or hand moves it on
                log.exception("moving tournament of %s on", table.id)
        return self._result(event, hand, state)

    # ------------------------------------------------------------------ the clock

    def house_act(self, hand: rows.HandRow, seat: Seat, kind: str, body: dict[str, Any]) -> None:
        """The house's call or card for ``seat``, whose clock ran out (api/clock.py): the
        server's own event, naming the seat, judged and logged as a player's is."""
        conn = self.db.connection()
        table = self.table(conn, hand.table_id)
        key = (hand.table_id, hand.number)
        with self.hand_lock(key):
            self.forget(key)
            fresh = rows.get_hand(conn, *key)
            if fresh.event_count != hand.event_count:
                return  # the hand moved meanwhile: the clock looks again
            event = self.hand_log.server_event(
                hand.table_id,
                hand.number,
                fresh.event_count,
                fresh.last_hash or None,
                kind,
                {**body, "seat": seat.name},
                time=self.now(),
            )
            self._judge(conn, table, seat, kind, event, fresh)
        self.changes.touch()

    def clock_event(self, hand: rows.HandRow, kind: str, seat: Seat, used: int) -> None:
        """Log the clock's ``clock_warning`` or ``clock_expired`` for ``seat`` (its time used,
        ``used`` ms) as the hand's next event, and write it into the row's clock."""
        conn = self.db.connection()
        key = (hand.table_id, hand.number)
        with self.hand_lock(key):
            fresh = rows.get_hand(conn, *key)
            if fresh.event_count != hand.event_count:
                return
            before = fresh.event_count
            body = {
                "seat": seat.name,
                "board": fresh.ceremony.get("board"),
                "limit_ms": int(fresh.clock["limit_ms"]),
                "warning_ms": int(fresh.clock["warning_ms"]),
                "used_ms": used,
            }
            event = self.hand_log.server_event(
                fresh.table_id,
                fresh.number,
                before,
                fresh.last_hash or None,
                kind,
                body,
                time=self.now(),
            )
            self.log_event(fresh, event)
            clock.apply_event(fresh.clock, kind, body)
            self.forget(key)
            try:
                self.hand_log.append(fresh.pending)
            except LogChainBroken:
                return  # another host's clock, or a player, took this seq: the next look
            if not rows.update_hand(conn, fresh, before):
                catch = rows.get_hand(conn, *key)
                repair.catch_up(self, conn, self.table(conn, fresh.table_id), catch)
        log.info("%s: table %s hand %d seat %s", kind, fresh.table_id, fresh.number, seat.name)
        self.changes.touch()

    def _write(
        self,
        conn: Connection,
        table: rows.Table,
        hand: rows.HandRow,
        before: int,
        kind: str,
        finished: Finished | None,
    ) -> bool:
        """Write the rows of a logged action; ``False`` if the row moved on meanwhile."""
        faults.after_append(kind, finished is not None)
        if finished is None:
            write = rows.advance_hand if kind in ("call", "play") else rows.update_hand
            return write(conn, hand, before)  # one statement, autocommitted
        self.hand_log.sign_checkpoint()
        with conn.transaction():
            if not rows.update_hand(conn, hand, before):
                return False  # nothing written: the transaction commits empty
            report_id, report, record, following = finished
            rows.insert_report(
                conn,
                report_id,
                table_id=table.id,
                hand_number=hand.number,
                report=report,
                record=record,
                players=list(table.seats.values()),
                created_at=hand.finished_at or self.now(),
                listed="board" not in hand.ceremony,  # a board's report: not searchable
            )
            if following is not None:
                rows.set_hand_count(conn, table.id, following.number)
                rows.insert_hand(conn, following)
        return True

    def _result(
        self, event: dict[str, Any], hand: rows.HandRow, state: HandState | None = None
    ) -> dict[str, Any]:
        """The answer to a logged event: its seq and hash, and the hand's head now."""
        if state is None and hand.phase in ("calling", "playing"):
            state = self.state(hand)
        return {
            "seq": event["seq"],
            "hash": event_hash(event),
            "next_seq": hand.event_count,
            "last_hash": hand.last_hash,
            "phase": hand.phase,
            "waiting_for": waiting_for(
                hand,
                None if state is None else state.to_act,
                None
                if state is None or state.pending_claim is None
                else state.pending_claim.to_json(),
            ),
        }

    def _logged_already(self, event: dict[str, Any]) -> bool:
        """Whether the log holds this very event (same hash) at its ``seq``."""
        logged = self.hand_log.hand_events(event["table"], int(event["hand"]))
        seq = event["seq"]
        return seq < len(logged) and event_hash(logged[seq]["event"]) == event_hash(event)

    # --------------------------------------------------------------------- end

    def _finish(self, table: rows.Table, hand: rows.HandRow, state: HandState) -> Finished:
        """After the last card: reveal, log the end, checkpoint, open the next hand."""
        record, report = hand.record, hand.end_report
        assert record is not None and report is not None
        if "board" not in hand.ceremony:  # a board's seeds are revealed at the event's end
            self.server_event(hand, "server_reveal", {"seed": hand.server_seed})
        report_id = rows.new_id("r")
        hand.report_id = report_id
        hand.finished_at = self.now()
        hand.end_score = next_start(report)
        self.server_event(
            hand,
            "end",
            {
                "record_sha256": hashlib.sha256(canonical_json(record)).hexdigest(),
                "report": report_id,
                "verdict": str(report.get("verdict")),
                "tricks": {"NS": state.won[0], "EW": state.won[1]},
            },
        )
        following = self.following(table, hand)
        return report_id, report, record, following

    def following(self, table: rows.Table, hand: rows.HandRow) -> rows.HandRow | None:
        """The hand after a finished one: the deal passes to the left and the packs
        alternate; a tournament table's next board, or none when its round is played."""
        if self.owner.is_event_table(table.id):
            return self.owner.following(table, hand)
        return self.open_hand(
            table, hand.number + 1, hand.end_score or ZERO_SCORE, hand.dealer.left, 1 - hand.pack
        )
