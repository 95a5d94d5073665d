"""Server-sent event streams of a table: its hands' public state, and a seat's own cards.

``GET /v1/tables/{t}/stream`` (anyone) and ``GET /v1/tables/{t}/seats/{seat}/stream``
(the seat's player only) answer ``text/event-stream``. The first message (``table``)
gives the table and its players' names; then a ``state`` message is sent on connect and
after every change of the table's current hand (each logged event, a new hand, a void):
``{"hand": <GET .../hands/{n}>, "previous": <the hand before, when the current hand is
new>, "cards": <GET .../seats/{seat}/cards, seat streams only>}``, with the id
``<hand>:<next_seq>``. A ``chat`` message (:func:`api.chat.chat_state`: whether the
table's chat is on and its latest messages) is sent on connect and after every message
posted to the table. A comment line every ``HEARTBEAT_SECONDS`` finds a client that
went away. After ``STREAM_SECONDS`` a ``bye`` message ends the stream; the page opens a
new one (EventSource would reconnect by itself, but a seat's stream needs a fresh
signature).

Privacy is that of the reads: a seat's stream carries that seat's cards and nothing of
any other seat's, and only for the seat's player. EventSource cannot send headers, so
the signed read travels in the query: ``?player=<id>&ts=<unix seconds>&sig=<base64>``,
the Ed25519 signature covering ``cayenne-fairplay/read/v1\\nGET\\n<path>\\n<ts>`` for the
path without its query (docs/api.md, "Who is who"), and ``ts`` within ``STREAM_WINDOW``
seconds of the server's clock: the URL opens that one stream, for a minute.

Each open stream holds a server thread. A process serves at most ``max_streams`` at
once (``Config.max_streams``; ``fairplay serve`` keeps it under ``--threads``); the next
is answered 429 with ``Retry-After``. Waiting threads wake on this process's actions at
once (:class:`api.changes.Changes`) and read the hand's row every second for other
processes' actions.
"""

from __future__ import annotations

import base64
import binascii
import json
import threading
import time
from collections.abc import Callable, Iterator
from typing import Any

from api import chat, rows
from api.config import Config
from api.database import Connection
from api.errors import Forbidden, InvalidSignature, TooManyRequests, Unauthorized
from api.inputs import check_text
from api.room import Room, repair
from api.signing import parse_player_key, read_message
from audit.errors import DatabaseUnavailable, NotFoundError
from audit.log.errors import LogSignatureInvalid
from audit.rules.cards import Seat

__all__ = [
    "HEARTBEAT_SECONDS",
    "PER_CLIENT",
    "STREAM_SECONDS",
    "STREAM_WINDOW",
    "WAKE_SECONDS",
    "CEILING",
    "Held",
    "Render",
    "Slots",
    "StreamSlots",
    "check_seat_reader",
    "messages",
    "sse",
    "stream_reader",
]

STREAM_SECONDS = 55.0
"""How long one stream lasts before its ``bye``."""
HEARTBEAT_SECONDS = 15.0
WAKE_SECONDS = 1.0
"""How often a waiting stream reads its table's row (other processes' actions)."""
STREAM_WINDOW = 60
"""Seconds a signed stream URL stays valid (``ts`` against the server's clock)."""


class Slots:
    """At most ``n`` streams at once in this process."""

    def __init__(self, n: int) -> None:
        self._sem = threading.BoundedSemaphore(n)
        self.n = n

    def take(self) -> Callable[[], None]:
        """A slot, or 429; the function that gives it back (once)."""
        if not self._sem.acquire(blocking=False):
            raise TooManyRequests(
                f"this host serves {self.n} event streams already; try again shortly",
                retry_after=5,
            )
        done = threading.Event()

        def release() -> None:
            if not done.is_set():
                done.set()
                self._sem.release()

        return release


PER_CLIENT = 2
"""Streams one client (a spectator's address, a seated player) holds at once in a pool:
a page and its reload overlap for a moment. A client's next stream supersedes its oldest
(a person who reloads a page, or opens the seat in another window, is the person here
now), which ends with a ``bye`` that says so within :data:`WAKE_SECONDS`; a closed page's
stream is otherwise only noticed at its next write, up to :data:`HEARTBEAT_SECONDS` on."""

CEILING = 2 * PER_CLIENT
"""Streams a client may hold while its superseded ones are ending; past it, 429."""


class Held:
    """A stream's slot: :meth:`release` gives it back (once); :attr:`superseded` is set when
    a newer stream of the same client took its place."""

    def __init__(self, release: Callable[[], None]) -> None:
        self._release = release
        self.superseded = threading.Event()

    def release(self) -> None:
        self._release()

    __call__ = release


class StreamSlots:
    """A host's stream budget in two pools, so spectators cannot shut the players out:
    seat streams (seated players, signed) and table streams (anyone), a quarter of
    ``n`` (at least one) for the spectators and the rest (at least one) for the seats;
    and in each pool at most :data:`PER_CLIENT` live streams per client, a newer one
    superseding the oldest."""

    def __init__(self, n: int) -> None:
        watch = max(1, n // 4)
        self._pools = {"watch": Slots(watch), "seat": Slots(max(1, n - watch))}
        self._held: dict[tuple[str, str], list[Held]] = {}
        self._lock = threading.Lock()

    def take(self, pool: str, client: str) -> Held:
        """A slot of ``pool`` for ``client`` (the client's oldest live stream superseded
        when it holds :data:`PER_CLIENT`), or 429."""
        key = (pool, client)
        with self._lock:
            held = self._held.setdefault(key, [])
            if len(held) >= CEILING:
                raise TooManyRequests(
                    f"this client holds {len(held)} event streams already; close one",
                    retry_after=5,
                )
            try:
                release_slot = self._pools[pool].take()
            except TooManyRequests:
                if not held:
                    del self._held[key]
                raise
            live = [h for h in held if not h.superseded.is_set()]
            for old in live[: max(0, len(live) - PER_CLIENT + 1)]:
                old.superseded.set()
            done = threading.Event()

            def release() -> None:
                with self._lock:
                    if done.is_set():
                        return
                    done.set()
                    mine = self._held.get(key, [])
                    mine.remove(this)
                    if not mine:
                        del self._held[key]
                release_slot()

            this = Held(release)
            held.append(this)
        return this


def stream_reader(conn: Connection, config: Config, args: dict[str, str], path: str) -> str:
    """The player who signed this stream's URL (``player``, ``ts``, ``sig`` in ``args``)."""
    try:
        player, ts_text, sig_text = args["player"], args["ts"], args["sig"]
    except KeyError as exc:
        raise Unauthorized(
            f"{exc.args[0]}: a seat's stream needs player, ts and sig in the query",
            details={"path": exc.args[0]},
        ) from None
    check_text(player, "player")
    try:
        ts = int(ts_text)
    except ValueError:
        raise Unauthorized("ts: unix seconds", details={"path": "ts"}) from None
    try:
        sig = base64.b64decode(sig_text, validate=True)
    except (ValueError, binascii.Error):
        raise Unauthorized("sig: base64", details={"path": "sig"}) from None
    now = config.clock()
    if abs(now - ts) > STREAM_WINDOW:
        raise Unauthorized(
            f"ts: a stream's signature is valid {STREAM_WINDOW}s",
            details={"path": "ts", "server_time": int(now)},
        )
    try:
        key = rows.get_player(conn, player).public_key
    except NotFoundError:
        raise InvalidSignature(f"player: unknown player {player!r}") from None
    try:
        parse_player_key(key).verify(read_message("GET", path, ts), sig)
    except LogSignatureInvalid:
        raise InvalidSignature(
            "sig: the signature does not verify with the player's key", details={"path": "sig"}
        ) from None
    return player


def check_seat_reader(table: rows.Table, seat: Seat, reader: str) -> None:
    if table.seats[seat] != reader:
        raise Forbidden(
            f"only the player at {seat.name} may follow this seat's stream",
            details={"seat": seat.name},
        )


def sse(event: str, data: Any, ident: str | None = None) -> str:
    """One server-sent event (the JSON on one line)."""
    head = f"id: {ident}\n" if ident is not None else ""
    return f"{head}event: {event}\ndata: {json.dumps(data, separators=(',', ':'))}\n\n"


Render = Callable[[rows.Table, int, bool], dict[str, Any]]
"""(table, current hand number, whether the hand is new to this stream) → a message."""


def messages(
    room: Room,
    table_id: str,
    first: dict[str, Any],
    render: Render,
    seconds: float = STREAM_SECONDS,
    superseded: threading.Event | None = None,
) -> Iterator[str]:
    """The stream's text: ``first`` as the ``table`` message, then ``state`` on changes;
    ``bye`` at the end of its time, or with ``superseded`` when a newer stream of the same
    client took its place (the page is not to reconnect then)."""
    yield "retry: 3000\n\n"
    yield sse("table", first)
    last: tuple[int, int, str] | None = None
    chat_seen: int | None = None
    start = beat = time.monotonic()
    seen = room.changes.version
    while not room.changes.closed:
        if superseded is not None and superseded.is_set():
            yield sse("bye", {"reconnect": False, "superseded": True})
            return
        try:
            conn = room.db.connection()  # reopened after the database came back
            table = rows.get_table(conn, table_id)
            hand = rows.get_hand(conn, table_id, table.hand_count)
            if repair.expire(room, hand):
                continue
            head = (hand.number, hand.event_count, hand.phase)
            state = None
            if head != last:  # rendered inside: it reads the hand again
                new = last is None or last[0] != hand.number
                state = sse(
                    "state", render(table, hand.number, new), f"{hand.number}:{hand.event_count}"
                )
        except DatabaseUnavailable as exc:
            # The stream stays open through an outage and goes on where it was.
            if time.monotonic() - start > seconds:
                yield sse("bye", {"reconnect": True})
                return
            yield ": database unavailable\n\n"
            seen = room.changes.wait(seen, min(float(exc.retry_after), WAKE_SECONDS * 3))
            continue
        if state is not None:
            last = head
            beat = time.monotonic()
            yield state
        try:
            said = chat.head(room, table_id)
            if said != chat_seen:  # the table's chat: its latest messages (api/chat.py)
                chat_seen = said
                yield sse("chat", chat.chat_state(room, table_id))
        except DatabaseUnavailable:
            pass  # said on the next wake
        now = time.monotonic()
        if now - start > seconds:
            yield sse("bye", {"reconnect": True})
            return
        if now - beat > HEARTBEAT_SECONDS:
            beat = now
            yield ": ping\n\n"
        seen = room.changes.wait(seen, WAKE_SECONDS)
