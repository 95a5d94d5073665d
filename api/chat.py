"""A table's chat: messages to everyone at the table, each an event its writer signs.

A message is a ``chat`` event (``audit/log/schema/chat.json``) in the table's own chain,
hand ``chat`` of the table (``seq`` and ``prev`` as in a hand's chain), signed by a
player seated at the table and appended to the log like a call or a card: nothing said
can be denied or changed afterwards, and the log's checkpoints cover it. It goes to the
whole table: the four seats and whoever may watch the table (a public table's
spectators; an event's private table only its players and the directors). There is no
message to one seat, nor to a partner alone.

Chat is on at an ordinary table and off at an event's table unless the event turned it
on when it was created (``"chat": true``; docs/tournaments.md). A message is 1 to
:data:`MAX_TEXT` characters with no control character; a player may send at most
:data:`RATE_COUNT` in :data:`RATE_SECONDS` (429 beyond, per process). Pages show the text
as text, never as HTML.
"""

from __future__ import annotations

import threading
import time
import unicodedata
from collections import deque
from typing import Any

from api import rows
from api.cache import Bounded
from api.errors import BadRequest, Forbidden, InvalidSignature, ReplayedEvent, TooManyRequests
from api.room import Room
from audit.log.errors import EventError, LogChainBroken, LogSignatureInvalid
from audit.log.events import check_event, event_hash, verify_event
from audit.log.schemas import check_cayenne_event

__all__ = [
    "CHAT_HAND",
    "MAX_SHOWN",
    "MAX_TEXT",
    "RATE_COUNT",
    "RATE_SECONDS",
    "TableChat",
    "chat_state",
    "enabled",
    "head",
]

CHAT_HAND = "chat"
"""The ``hand`` of a table's chat chain."""
MAX_TEXT = 300
"""The longest message, in characters (the event's schema says the same)."""
RATE_COUNT = 5
RATE_SECONDS = 10.0
"""At most RATE_COUNT messages a player in RATE_SECONDS."""
MAX_SHOWN = 100
"""The most recent messages a read returns."""


def enabled(room: Room, table_id: str) -> bool:
    """Whether the table's chat is on: an ordinary table's unless its creator turned it
    off, an event's if the event turned it on."""
    return room.chat_on(table_id)


def head(room: Room, table_id: str) -> int:
    """How many messages the table's chat holds (its next ``seq``)."""
    return room.hand_log.log.next_link(table_id, CHAT_HAND)[0]


def chat_state(room: Room, table_id: str) -> dict[str, Any]:
    """The chat's state and its latest :data:`MAX_SHOWN` messages, oldest first (the
    route's answer and the table stream's ``chat`` message)."""
    conn = room.db.connection()
    table = room.table(conn, table_id)
    logged = room.hand_log.log.hand_events(table_id, CHAT_HAND)
    seats = {p: s.name for s, p in table.seats.items()}
    names = {p: rows.get_player(conn, p).name for p in seats}
    last = logged[-1]["event"] if logged else None
    return {
        "table": table_id,
        "enabled": enabled(room, table_id),
        "next_seq": len(logged),
        "last_hash": None if last is None else event_hash(last),
        "messages": [
            {
                "seq": ev["seq"],
                "index": item["index"],
                "seat": seats.get(ev["actor"]),
                "player": ev["actor"],
                "name": names.get(ev["actor"], ev["actor"]),
                "text": ev["body"]["text"],
                "time": ev.get("time"),
            }
            for item in logged[-MAX_SHOWN:]
            for ev in (item["event"],)
        ],
    }


class TableChat:
    """The tables' chat: the messages posted (see the module docstring)."""

    def __init__(self, room: Room) -> None:
        self.room = room
        self._sent: Bounded[str, deque[float]] = Bounded(4096)
        self._lock = threading.Lock()

    def read(self, table_id: str) -> dict[str, Any]:
        return chat_state(self.room, table_id)

    # ------------------------------------------------------------------ writing

    def post(self, table_id: str, body: object) -> dict[str, Any]:
        """Check, log and announce one signed message; the chat's new head."""
        try:
            event = check_event(body)
            if event["type"] != "chat":
                raise EventError(
                    f"event.type: {event['type']!r} is not a message (chat)",
                    details={"path": "event.type"},
                )
            check_cayenne_event(event)
        except EventError as exc:
            path = exc.details.get("path") if exc.details else None
            raise BadRequest(exc.message, details={"path": path or "event"}) from None
        if event["origin"] != self.room.hand_log.origin:
            raise BadRequest(
                f"event.origin: this log is {self.room.hand_log.origin!r}",
                details={"path": "event.origin"},
            )
        if event["table"] != table_id:
            raise BadRequest("event.table: not this table", details={"path": "event.table"})
        text = event["body"]["text"]
        if not text.strip() or any(unicodedata.category(ch) == "Cc" for ch in text):
            raise BadRequest(
                "event.body.text: a message of visible text, with no control character",
                details={"path": "event.body.text"},
            )
        conn = self.room.db.connection()
        table = self.room.table(conn, table_id)
        actor = event["actor"]
        if table.seat_of(actor) is None:
            raise Forbidden(
                f"{actor} is not seated at table {table_id}: only its players write to it",
                details={"path": "event.actor"},
            )
        try:
            verify_event(event, self.room.states.player_key(conn, actor))
        except LogSignatureInvalid as exc:
            raise InvalidSignature(exc.message, details={"path": "event.signature"}) from None
        if not enabled(self.room, table_id):
            raise Forbidden(
                "chat is off at this table (its creator turned it off, or it is an event's "
                "table and the event did not turn it on)",
                details={"table": table_id},
            )
        self._rate(actor)
        try:
            self.room.hand_log.append([event])
        except LogChainBroken as exc:
            seq, prev = self.room.hand_log.log.next_link(table_id, CHAT_HAND)
            raise ReplayedEvent(
                f"stale or replayed message: {exc.message}",
                details={"expected_seq": seq, "expected_prev": prev},
            ) from None
        self.room.changes.touch()
        digest = event_hash(event)
        return {
            "seq": event["seq"],
            "hash": digest,
            "next_seq": event["seq"] + 1,
            "last_hash": digest,
        }

    def _rate(self, player: str) -> None:
        now = time.monotonic()
        with self._lock:
            sent = self._sent.get_or_make(player, deque)
            while sent and now - sent[0] > RATE_SECONDS:
                sent.popleft()
            if len(sent) >= RATE_COUNT:
                wait = max(1, int(RATE_SECONDS - (now - sent[0])) + 1)
                raise TooManyRequests(
                    f"at most {RATE_COUNT} messages in {RATE_SECONDS:.0f} s; wait {wait} s",
                    retry_after=wait,
                )
            sent.append(now)
