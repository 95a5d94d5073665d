"""The room: it owns a hand's life, from its opening through the shuffle ceremony, the
signed calls and plays, to its end, and the repairs of :mod:`api.room.repair`.

The room's public interface is :class:`Live`'s public methods (``create_table``,
``submit``, ``state``, ``snapshot``, ``record_of``, and the steps the repairs reuse:
``table``, ``hand_lock``, ``open_hand``, ``accept``, ``server_event``, ``log_event``,
``forget``); nothing outside this package touches its private members.

A player's action is an event of the log's format, signed with the player's key. It is
checked in this order, and nothing is stored or logged unless every check passes:

1. shape: the log's event rules and the JSON Schema of the action's type
   (``audit/log/schema/``: no unknown field, bounded sizes, ``time`` in RFC 3339 UTC),
   binding to the log's origin, this table and this hand (400);
2. the actor is seated at this table (403);
3. the Ed25519 signature, under the key the player registered (401);
4. ``seq`` and ``prev`` name the hand's next event: a replayed or stale event is refused
   (409 ``REPLAYED_EVENT``);
5. the ceremony or the rules engine accepts the action (409 out of turn or wrong phase;
   422 a card not held, a revoke, a bad call, a seed that does not open its commitment).

Then the event is appended to the log, which re-checks signature, key and chain under its
own lock: of two different events racing for the same ``seq`` exactly one wins, the other
answers 409. The hand's row (``api_hands``) is then updated with a compare-and-set on its
event count.

The log is the truth and the rows are derived from it. An event refused while the log
is ahead of the hand's row (a host died between its append and its row write, or is
between the two) is judged again once the row is brought up to the log
(:func:`api.room.repair.catch_up`), whoever wrote it; an event the log already holds (a
client's retry, or the same event sent to two hosts) answers with its result, on any
host: a refused action is never one the log holds. The log is the hand's history; the rules state is rebuilt from it and cached per
process, keyed by the hand's event count, so a play costs no replay.

At the end of the hand the server reveals its seed (a logged event), the record (with its
shuffle transcript) is audited, the report stored, an ``end`` event logged, the log's
checkpoint advanced, and the next hand opened with the next dealer and pack. Rows the
log is ahead of after a crash, and voids, are :mod:`api.room.repair`'s.
"""

from __future__ import annotations

import hashlib
import hmac
import logging
import threading
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Protocol

from api import ceremony, faults, rows
from api.cache import Bounded
from api.changes import Changes
from api.config import Config
from api.database import Connection, Database
from api.errors import BadRequest, Forbidden, InvalidSignature, ReplayedEvent, WrongPhase
from api.hand_log import Ledger
from api.handstate import (
    PLAYER_KINDS,
    ZERO_SCORE,
    Snapshot,
    apply_action,
    next_start,
    ruleset_pattern,
    waiting_for,
)
from api.room import repair
from api.signing import parse_player_key
from audit.errors import FairplayError
from audit.log.errors import EventError, LogChainBroken, LogSignatureInvalid
from audit.log.events import canonical_json, check_event, event_hash, verify_event
from audit.log.keys import Verifier
from audit.log.schemas import check_cayenne_event
from audit.rules.cards import CARD_TEXT, Seat, parse_card
from audit.rules.play import HandState
from shuffle.protocol import Transcript

if TYPE_CHECKING:
    from shuffle.tournament import BoardDeal

__all__ = ["MAX_CACHED", "Live", "TableOwner"]

MAX_CACHED = 4096
"""Hands whose rules state (and lock) a process keeps."""


class TableOwner(Protocol):
    """Whoever owns some of the room's tables beyond their hands (an event owns its
    tables: api/tournament): the room hands it the end of each of their hands."""

    def is_event_table(self, table_id: str) -> bool:
        """Whether ``table_id`` is one of its tables (it never changes)."""
        ...

    def following(self, table: rows.Table, hand: rows.HandRow) -> rows.HandRow | None:
        """The hand after ``hand`` at one of its tables, or ``None`` when it is done."""
        ...

    def hand_ended(self, table_id: str) -> None:
        """A hand of one of its tables is over (logged and written)."""
        ...


class NoOwner:
    """A room whose tables are all its own (no tournament)."""

    def is_event_table(self, table_id: str) -> bool:
        return False

    def following(self, table: rows.Table, hand: rows.HandRow) -> rows.HandRow | None:
        raise AssertionError("no table of this room has an owner")  # pragma: no cover

    def hand_ended(self, table_id: str) -> None:
        return None


class Live:
    """The room of one process: the hands' lives (see the module docstring).

    ``owner`` makes, from the room, whoever owns some of its tables (the tournaments):
    the room and its owner each need the other, so the room makes it once, here."""

    def __init__(
        self,
        db: Database,
        config: Config,
        ledger: Ledger,
        owner: Callable[[Live], TableOwner] | None = None,
    ) -> None:
        self.db = db
        self.config = config
        self.ledger = ledger
        self._states: Bounded[tuple[str, int], tuple[int, HandState]] = Bounded(MAX_CACHED)
        """A dealt hand's rules state and the event count it reflects."""
        self._rows: Bounded[tuple[str, int], rows.HandRow] = Bounded(MAX_CACHED)
        """The last hand row this process wrote (checked against each event)."""
        self._locks: Bounded[tuple[str, int], threading.Lock] = Bounded(MAX_CACHED)
        self._tables: Bounded[str, rows.Table] = Bounded(MAX_CACHED)
        self._keys: Bounded[str, Verifier] = Bounded(MAX_CACHED)
        self._event_tables: Bounded[str, bool] = Bounded(MAX_CACHED)
        """The last hand row this process wrote, per hand (checked against each event)."""
        self.changes = Changes()
        """Woken after every logged action (server-sent event streams, house bots)."""
        self.owner: TableOwner = NoOwner() if owner is None else owner(self)
        """The owner of the tournament tables: their following hands and rounds."""

    def now(self) -> str:
        return rows.now_iso(self.config.clock())

    # ------------------------------------------------------------------ tables, hands

    def create_table(
        self, name: str, seats: dict[Seat, str], ruleset: dict[str, Any], first_dealer: Seat
    ) -> rows.Table:
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
            id=rows.new_id("t"),
            name=name,
            ruleset=ruleset,
            seats=seats,
            first_dealer=first_dealer,
            hand_count=1,
            created_at=self.now(),
        )
        hand = self.open_hand(table, 1, ZERO_SCORE, first_dealer, 0)
        self.ledger.append(hand.pending)
        with conn.transaction():
            rows.insert_table(conn, table)
            rows.insert_hand(conn, hand)
        return table

    def _fresh_row(
        self,
        table: rows.Table,
        number: int,
        phase: str,
        dealer: Seat,
        pack: int,
        start: dict[str, Any],
        server_seed: str,
        server_commitment: str,
        ceremony_extra: dict[str, Any],
    ) -> rows.HandRow:
        """The row of a hand before its first event: no commitment, seed or card yet."""
        return rows.HandRow(
            table_id=table.id,
            number=number,
            phase=phase,
            dealer=dealer,
            pack=pack,
            server_seed=server_seed,
            server_commitment=server_commitment,
            ceremony={"commitments": {}, "seeds": {}, **ceremony_extra},
            event_count=0,
            last_hash="",
            start_score=start,
            end_score=None,
            record=None,
            report_id=None,
            started_at=self.now(),
            finished_at=None,
        )

    def open_hand(
        self, table: rows.Table, number: int, start: dict[str, Any], dealer: Seat, pack: int
    ) -> rows.HandRow:
        """A new hand: the server's seed and commitment, logged as the hand's event 0."""
        seed = self.ledger.server_seed(table.id, number)
        commitment = ceremony.server_commitment(seed, table.id, number)
        hand = self._fresh_row(
            table, number, "committing", dealer, pack, start, seed.hex(), commitment, {}
        )
        self.server_event(
            hand,
            "open",
            {
                "server_commitment": commitment,
                "dealer": hand.dealer.name,
                "pack": hand.pack,
                "seats": {s.name: p for s, p in table.seats.items()},
                "ruleset": table.ruleset,
            },
        )
        return hand

    def open_board(
        self, table: rows.Table, number: int, event: dict[str, Any], rnd: int, board: BoardDeal
    ) -> rows.HandRow:
        """A duplicate board at a tournament table: no ceremony, the board's deal
        (cayenne-tournament-deals/1), logged as ``board_open`` (the deal stays secret)."""
        hand = self._fresh_row(
            table,
            number,
            "calling",
            board.dealer,
            board.pack,
            ZERO_SCORE,
            "",
            "",
            {
                "tournament": event["id"],
                "round": rnd,
                "board": board.board,
                "deal": {s.name: [CARD_TEXT[x] for x in board.deal[s]] for s in Seat},
                "order": [CARD_TEXT[x] for x in board.pack_order],
                "cayenne": CARD_TEXT[board.cayenne],
                "deal_number": str(board.deal_number),
                "pattern": list(event["pattern"]),
                "players": {s.name: p for s, p in table.seats.items()},
            },
        )
        self.server_event(
            hand,
            "board_open",
            {
                "tournament": event["id"],
                "round": rnd,
                "board": board.board,
                "dealer": board.dealer.name,
                "pack": board.pack,
                "seats": {s.name: p for s, p in table.seats.items()},
                "ruleset": table.ruleset,
            },
        )
        return hand

    def server_event(self, hand: rows.HandRow, kind: str, body: dict[str, Any]) -> None:
        prev = hand.last_hash or None
        event = self.ledger.server_event(
            hand.table_id, hand.number, hand.event_count, prev, kind, body
        )
        self.log_event(hand, event)

    @staticmethod
    def log_event(hand: rows.HandRow, event: dict[str, Any]) -> None:
        """Accept ``event`` as the hand's next; it reaches the log with the request's others."""
        hand.pending.append(event)
        hand.event_count += 1
        hand.last_hash = event_hash(event)

    # ------------------------------------------------------------------------- state

    def state(self, hand: rows.HandRow) -> HandState | None:
        """The rules state of a dealt hand (``None`` during the ceremony)."""
        if "deal" not in hand.ceremony:
            return None
        key = (hand.table_id, hand.number)
        cached = self._states.get(key)
        if cached is not None and cached[0] == hand.event_count:
            return cached[1]
        c = hand.ceremony
        state = HandState(
            {Seat.parse(s): [parse_card(x) for x in cards] for s, cards in c["deal"].items()},
            hand.dealer,
            parse_card(c["cayenne"]),
            tuple(c["pattern"]),
        )
        seats = {p: Seat.parse(s) for s, p in c["players"].items()}
        for item in self.ledger.hand_events(hand.table_id, hand.number):
            ev = item["event"]
            if ev["seq"] >= hand.event_count:
                break
            if ev["type"] in ("call", "play"):
                apply_action(state, seats[ev["actor"]], ev["type"], ev["body"])
        self._remember(key, hand.event_count, state)
        return state

    def snapshot(self, hand: rows.HandRow) -> Snapshot | None:
        """A consistent view of a dealt hand's rules state (``None`` during the ceremony).

        The cached state is shared with the writers of this process, so it is read
        under the hand's lock and copied out.
        """
        if "deal" not in hand.ceremony:
            return None
        with self.hand_lock((hand.table_id, hand.number)):
            state = self.state(hand)
            assert state is not None
            to_act = state.to_act
            return Snapshot(
                public=state.public_state(),
                to_act=to_act,
                contract=None if state.contract is None else state.contract.text,
                held={s: [CARD_TEXT[c] for c in state.hand(s)] for s in Seat},
                legal_calls=state.legal_calls(),
                legal_plays=[]
                if to_act is None
                else [CARD_TEXT[c] for c in state.legal_plays(to_act)],
            )

    def _remember(self, key: tuple[str, int], count: int, state: HandState) -> None:
        cached = self._states.get(key)
        if cached is None or cached[0] <= count:  # a reader may have rebuilt an older one
            self._states.put(key, (count, state))

    def forget(self, key: tuple[str, int]) -> None:
        self._states.pop(key)
        self._rows.pop(key)

    # ------------------------------------------------------------------------ submit

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
        if event["origin"] != self.ledger.origin:
            raise BadRequest(
                f"event.origin: this log is {self.ledger.origin!r}",
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
            verify_event(event, self._player_key(conn, actor))
        except LogSignatureInvalid as exc:
            raise InvalidSignature(exc.message, details={"path": "event.signature"}) from None
        if kind in ("commit", "reveal"):
            repair.expire(self, rows.get_hand(conn, table_id, number))
        with self.hand_lock((table_id, number)):
            result = self._submit_locked(conn, table, seat, kind, event)
        self.changes.touch()
        return result

    def table(self, conn: Connection, table_id: str) -> rows.Table:
        """A table's seats and ruleset (they never change), cached per process."""
        table = self._tables.get(table_id)
        if table is None:
            table = rows.get_table(conn, table_id)
            self._tables.put(table_id, table)
        return table

    def _player_key(self, conn: Connection, player_id: str) -> Verifier:
        """A player's registered key (it never changes), cached per process."""
        key = self._keys.get(player_id)
        if key is None:
            key = parse_player_key(rows.get_player(conn, player_id).public_key)
            self._keys.put(player_id, key)
        return key

    def _event_table(self, table_id: str) -> bool:
        """Whether a table is a tournament's (it never changes: cached per process)."""
        known = self._event_tables.get(table_id)
        if known is None:
            known = self.owner.is_event_table(table_id)
            self._event_tables.put(table_id, known)
        return known

    def hand_lock(self, key: tuple[str, int]) -> threading.Lock:
        """Serialises this process's threads on one hand (other processes: the log's chain)."""
        return self._locks.get_or_make(key, threading.Lock)

    def _submit_locked(
        self, conn: Connection, table: rows.Table, seat: Seat, kind: str, event: dict[str, Any]
    ) -> dict[str, Any]:
        """Judge the event against the hand's row; if it is refused while the log is ahead
        of the row (a host died between its append and its row write), bring the row up
        to the log and judge again: an event the log already holds (a retry, or the same
        event sent to two hosts) answers with its result instead of a refusal."""
        table_id, number = table.id, int(event["hand"])
        key = (table_id, number)
        hand = self._rows.pop(key)
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
            if self.ledger.head(table_id, number) > hand.event_count:
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
                    logging.getLogger(__name__).exception("moving tournament of %s on", table_id)
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
            state = self.accept(table, hand, seat, kind, event)
            finished = (
                self._finish(table, hand, state) if state is not None and state.is_over else None
            )
            try:
                # One unit: the action and, at the end of a hand, the server's reveal, the
                # end and the next hand's opening; the log re-checks every chain.
                following = finished[3] if finished else None
                self.ledger.append(hand.pending + (following.pending if following else []))
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
            self._remember(key, hand.event_count, state)
        elif hand.phase == "over":
            self.forget(key)
        if hand.phase != "over":
            hand.pending = []
            self._rows.put(key, hand)
        if finished is not None:
            try:
                self.owner.hand_ended(table.id)
            except FairplayError:  # the hand stands; the next reader or hand moves it on
                logging.getLogger(__name__).exception("moving tournament of %s on", table.id)
        return self._result(event, hand, state)

    def _write(
        self,
        conn: Connection,
        table: rows.Table,
        hand: rows.HandRow,
        before: int,
        kind: str,
        finished: tuple[str, dict[str, Any], dict[str, Any], rows.HandRow | None] | None,
    ) -> bool:
        """Write the rows of a logged action; ``False`` if the row moved on meanwhile."""
        faults.after_append(kind, finished is not None)
        if finished is None:
            write = rows.advance_hand if kind in ("call", "play") else rows.update_hand
            return write(conn, hand, before)  # one statement, autocommitted
        self.ledger.sign_checkpoint()
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
            "waiting_for": waiting_for(hand, None if state is None else state.to_act),
        }

    def _logged_already(self, event: dict[str, Any]) -> bool:
        """Whether the log holds this very event (same hash) at its ``seq``."""
        logged = self.ledger.hand_events(event["table"], int(event["hand"]))
        seq = event["seq"]
        return seq < len(logged) and event_hash(logged[seq]["event"]) == event_hash(event)

    def accept(
        self, table: rows.Table, hand: rows.HandRow, seat: Seat, kind: str, event: dict[str, Any]
    ) -> HandState | None:
        """Validate and log the action; the rules state after it (``None`` in the ceremony)."""
        body = event["body"]
        if hand.phase in ("over", "void"):
            raise WrongPhase(f"the hand is {hand.phase}")
        c = hand.ceremony  # this request's own copy of the row: nothing is kept on failure
        if kind == "commit":
            if hand.phase != "committing":
                raise WrongPhase(f"the hand is {hand.phase}; commitments are closed")
            if seat.name in c["commitments"]:
                raise WrongPhase(f"{seat.name} has already committed")
            if not c["commitments"]:
                c["since"] = self.now()  # the ceremony's clock (api.room.repair.expire)
            commitment = ceremony.parse_commitment(body.get("commitment"))
            ceremony.check_fresh_commitment(
                commitment, seat, c["commitments"], hand.server_commitment
            )
            c["commitments"][seat.name] = commitment
            self.log_event(hand, event)
            if len(c["commitments"]) == 4:
                hand.phase = "revealing"
            return None
        if kind == "reveal":
            if hand.phase != "revealing":
                raise WrongPhase(
                    f"the hand is {hand.phase}; seeds are revealed after all four commit"
                )
            if seat.name in c["seeds"]:
                raise WrongPhase(f"{seat.name} has already revealed")
            seed = ceremony.parse_seed(body.get("seed"))
            ceremony.check_reveal(
                seed, c["commitments"][seat.name], seat, table.seats[seat], table.id, hand.number
            )
            c["seeds"][seat.name] = seed.hex()
            self.log_event(hand, event)
            if len(c["seeds"]) == 4:
                self._deal(table, hand)
                return self.state(hand)
            return None
        state = self.state(hand)
        if state is None:
            raise WrongPhase(f"the hand is {hand.phase}; calls and plays wait for the deal")
        apply_action(state, seat, kind, body)
        if state.is_over:
            # Audit before logging the last card, so a failure leaves the log untouched.
            from audit.auditor import audit_document

            hand.record = self.record_of(table, hand, state)
            hand.end_report = audit_document(hand.record)
        self.log_event(hand, event)
        hand.phase = state.phase
        return state

    def _transcript(self, table: rows.Table, hand: rows.HandRow) -> Transcript:
        c = hand.ceremony
        return ceremony.transcript(
            table=table.id,
            hand=hand.number,
            pack=hand.pack,
            dealer=hand.dealer,
            pattern=ruleset_pattern(table.ruleset),
            players=table.seats,
            server_commitment_hex=hand.server_commitment,
            commitments=c["commitments"],
            seeds=c["seeds"],
            server_seed_hex=hand.server_seed,
        )

    def _deal(self, table: rows.Table, hand: rows.HandRow) -> None:
        """All seeds are in: derive the deal (known to the server only until the end)."""
        derived = ceremony.derive(self._transcript(table, hand))
        c = hand.ceremony
        c["deal"] = {s.name: [CARD_TEXT[x] for x in derived.deal[s]] for s in Seat}
        c["order"] = [CARD_TEXT[x] for x in derived.pack_order]
        c["cayenne"] = CARD_TEXT[derived.cayenne]
        c["deal_number"] = str(derived.deal_number)
        c["pattern"] = list(ruleset_pattern(table.ruleset))
        c["players"] = {s.name: p for s, p in table.seats.items()}
        hand.phase = "calling"

    # --------------------------------------------------------------------------- end

    def record_of(self, table: rows.Table, hand: rows.HandRow, state: HandState) -> dict[str, Any]:
        """The finished hand as a cayenne-record/1 document (one hand, with its start)."""
        rec_hand = state.to_record_hand()
        rec_hand["pack"] = hand.pack
        rec_hand["dealt_order"] = list(hand.ceremony["order"])
        if "board" in hand.ceremony:  # a duplicate board: its deal is the tournament's
            rec_hand["board"] = hand.ceremony["board"]
        else:
            rec_hand["shuffle"] = self._transcript(table, hand).with_outcome().to_json()
        return {
            "format": "cayenne-record/1",
            "table": table.id,
            "event": table.name,
            "players": {s.name: p for s, p in table.seats.items()},
            "ruleset": table.ruleset,
            "start": hand.start_score,
            "hands": [rec_hand],
            "x-hand-number": hand.number,
        }

    def _finish(
        self, table: rows.Table, hand: rows.HandRow, state: HandState
    ) -> tuple[str, dict[str, Any], dict[str, Any], rows.HandRow | None]:
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
