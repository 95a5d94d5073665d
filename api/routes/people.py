"""Tables of people: created by a player, joined by others, opened when four are seated.

``POST /v1/people-tables`` (a player's signed write, rate-limited) creates a table that
waits for its seats (:mod:`api.seatings`); ``POST .../seats`` takes one (a private
table's invitation token in the body); ``POST .../bots`` gives the empty seats to house
bots (its creator only); the request that seats the fourth opens the table and its hand
1. ``GET /v1/people-tables`` is the lobby (public tables with open seats), and
``GET .../stream`` follows one table's seats live until it opens. ``GET
/v1/players/{p}/tables`` is "my tables": every table where the signing player sits.
"""

from __future__ import annotations

import hmac
import secrets
import time
from collections.abc import Iterator
from typing import Any

from flask import Blueprint, Response, jsonify, request, stream_with_context

from api import rows
from api.auth import once, signed_reader, signed_writer
from api.clock import CLOCK, control_of
from api.config import Config
from api.database import Connection
from api.errors import Conflict, Forbidden, Unauthorized
from api.ratelimit import Rate, take
from api.routes import limit_arg, request_body, services
from api.routes.play import house, slots
from api.routes.players import check_name
from api.routes.tables import CHAT, TIME_CONTROL
from api.schemas import LIMIT, NAME, OBJ, SEAT, Schema, listing, param, spec
from api.seatings import (
    EXPIRED,
    OPEN,
    Seating,
    get_seating,
    insert_seating,
    lobby,
    mark_opened,
    seatings_of,
    take_seat,
    unmark_opened,
)
from api.sse import HEARTBEAT_SECONDS, STREAM_SECONDS, WAKE_SECONDS, sse, stream_reader
from audit.errors import DatabaseUnavailable
from audit.rules.cards import Seat
from audit.rules.ruleset import Ruleset

__all__ = [
    "JOIN",
    "NEW_PEOPLE_TABLE",
    "SEATING",
    "bp",
    "create_people_table",
    "give_seats_to_bots",
    "join_people_table",
    "list_lobby",
    "my_tables",
    "people_table",
    "people_table_stream",
    "seating_json",
]

bp = Blueprint("people", __name__)

_SEAT_FIELD: Schema = {**SEAT, "description": "one of N, E, S, W"}
NEW_PEOPLE_TABLE: Schema = {
    "type": "object",
    "x-error": "the body must be an object {name?, seat?, public?, ruleset?, first_dealer?, "
    "clock?, chat?}",
    "additionalProperties": False,
    "properties": {
        "name": {**NAME, "default": "table"},
        "seat": {**_SEAT_FIELD, "default": "S", "description": "the creator's seat: N, E, S or W"},
        "public": {
            "type": "boolean",
            "default": False,
            "description": "true: listed in the lobby; false: joined only by the invitation link",
        },
        "ruleset": {
            "type": "object",
            "description": "the table's rules (docs/rules.md); only known, valid settings "
            "(422 INVALID_RULESET)",
            "default": {},
            "x-check": "ruleset",
        },
        "first_dealer": {**_SEAT_FIELD, "default": "N"},
        "clock": CLOCK,
        "chat": CHAT,
    },
}
JOIN: Schema = {
    "type": "object",
    "x-error": "the body must be an object {seat, invitation?}",
    "additionalProperties": False,
    "required": ["seat"],
    "properties": {
        "seat": {**_SEAT_FIELD, "description": "the seat to take: N, E, S or W"},
        "invitation": {
            "type": "string",
            "maxLength": 200,
            "description": "a private table's invitation token (from its link)",
        },
    },
}
BOTS: Schema = {
    "type": "object",
    "x-error": "the body must be an object {seats?}",
    "additionalProperties": False,
    "properties": {
        "seats": {
            "type": "array",
            "items": SEAT,
            "maxItems": 3,
            "description": "the empty seats to give to house bots (default: every empty seat)",
        },
    },
}
SEATING: Schema = {
    "type": "object",
    "required": ["id", "name", "ruleset", "public", "seats", "status", "created_at", "links"],
    "properties": {
        "id": {"type": "string"},
        "name": {"type": "string"},
        "ruleset": OBJ,
        "first_dealer": SEAT,
        "public": {"type": "boolean"},
        "creator": {"type": "string"},
        "seats": {"type": "object", "additionalProperties": {"type": ["string", "null"]}},
        "names": {"type": "object", "additionalProperties": {"type": "string"}},
        "open_seats": {"type": "array", "items": SEAT},
        "status": {"type": "string", "enum": ["waiting", "open", "expired"]},
        "created_at": {"type": "string"},
        "expires_at": {"type": "string"},
        "clock": TIME_CONTROL,
        "chat": {"type": "boolean", "description": "whether the table will have chat"},
        "invitation": {"type": "string", "description": "to the table's seated players only"},
        "links": OBJ,
    },
}
MY_TABLE: Schema = {
    "type": "object",
    "required": ["id", "name", "seat", "status", "links"],
    "properties": {
        "id": {"type": "string"},
        "name": {"type": "string"},
        "seat": SEAT,
        "status": {"type": "string", "enum": ["waiting", "open", "expired"]},
        "seats": {"type": "object"},
        "hands": {"type": "integer"},
        "created_at": {"type": "string"},
        "clock": TIME_CONTROL,
        "links": OBJ,
    },
}
_INVITATION = param(
    "invitation", "query", {"type": "string"}, desc="a private table's invitation token"
)


def _unsigned() -> Unauthorized:
    return Unauthorized(
        "Authorization: sign this request, its body and a nonce with the player's key "
        "(Cayenne-Ed25519, cayenne-fairplay/write/v1)",
        details={"path": "Authorization"},
    )


def seating_json(conn: Connection, s: Seating, now: float, invitation: bool) -> dict[str, Any]:
    """A seating as the API shows it; its ``invitation`` only when ``invitation``."""
    seated = [p for p in s.seats.values() if p is not None]
    out: dict[str, Any] = {
        "id": s.id,
        "name": s.name,
        "ruleset": s.ruleset,
        "first_dealer": s.first_dealer.name,
        "public": s.public,
        "creator": s.creator,
        "seats": {seat.name: p for seat, p in s.seats.items()},
        "names": rows.player_names(conn, seated),
        "open_seats": [seat.name for seat in s.empty()],
        "status": s.status(now),
        "created_at": s.created_at,
        "expires_at": rows.now_iso(s.expires_at),
        "clock": s.clock,
        "chat": s.chat,
        "links": {
            "self": f"/v1/people-tables/{s.id}",
            "play": f"/play/{s.id}",
            "stream": f"/v1/people-tables/{s.id}/stream",
        },
    }
    if s.opened:
        out["links"]["table"] = f"/v1/tables/{s.id}"
    if invitation:
        out["invitation"] = s.token
        out["links"]["invite"] = f"/play/{s.id}#invite={s.token}"
    return out


def _token_matches(s: Seating, given: object) -> bool:
    return isinstance(given, str) and hmac.compare_digest(given.encode(), s.token.encode())


def _may_read(conn: Connection, config: Config, s: Seating) -> bool:
    """Whether this request may see the seating and its invitation: a public table's
    anyone may see (the invitation: its seated players only); a private one's, whoever
    gives its token or signs as one of its seated players."""
    if _token_matches(s, request.args.get("invitation")):
        return True
    reader = signed_reader(conn, config)
    if reader is not None and s.seat_of(reader) is not None:
        return True
    if not s.public:
        raise Forbidden(
            "invitation: a private table is seen and joined with its invitation token",
            details={"path": "invitation"},
        )
    return False


def _open_if_full(s: Seating) -> None:
    """Open the table and its hand 1 if the four are seated (exactly one request does);
    its house bots, if any, start."""
    srv = services()
    conn = srv.db.connection()
    fresh = get_seating(conn, s.id)
    seats = fresh.full()
    if seats is None or not mark_opened(conn, s.id):
        return
    try:
        srv.room.create_table(
            fresh.name,
            seats,
            fresh.ruleset,
            fresh.first_dealer,
            s.id,
            clock=fresh.clock,
            chat=fresh.chat,
        )
    except BaseException:
        unmark_opened(conn, s.id)
        raise
    house().ensure(s.id)


# --------------------------------------------------------------------------- routes


@bp.post("/v1/people-tables")
@spec(
    "Create a table of people with the signing player seated; it opens (hand 1) when four "
    "are seated (a signed write: its body and a nonce; rate-limited)",
    body=NEW_PEOPLE_TABLE,
    status=201,
    response=SEATING,
    errors=(401, 409, 422, 429),
    security="player",
)
def create_people_table() -> tuple[Response, int, dict[str, str]]:
    srv = services()
    conn = srv.db.connection()
    signed = signed_writer(conn, srv.config)
    if signed is None:
        raise _unsigned()
    person, nonce = signed
    body = request_body()
    name = check_name(body.get("name", "table"), "name")
    seat = Seat.parse(body.get("seat", "S"))
    ruleset = Ruleset.from_json(body.get("ruleset", {}), extensions=False).to_json()
    first_dealer = Seat.parse(body.get("first_dealer", "N"))
    control = control_of(body.get("clock"))
    now = srv.config.clock()
    rate = Rate(srv.config.register_burst, srv.config.register_per_hour)
    take(conn, "people-table", request.remote_addr or "unknown", rate, now)
    once(conn, f"{person} {nonce}", now, srv.config)
    seats: dict[Seat, str | None] = {s: None for s in Seat}
    seats[seat] = person
    seating = Seating(
        id=rows.new_id("t"),
        name=name,
        ruleset=ruleset,
        first_dealer=first_dealer,
        public=bool(body.get("public", False)),
        token=secrets.token_urlsafe(18),
        creator=person,
        seats=seats,
        created_at=rows.now_iso(now),
        expires_at=now + srv.config.people_table_ttl,
        opened=False,
        clock=control,
        chat=bool(body.get("chat", True)),
    )
    with conn.transaction():
        insert_seating(conn, seating)
    srv.room.changes.touch()
    out = seating_json(conn, seating, now, invitation=True)
    return jsonify(out), 201, {"Location": out["links"]["self"]}


@bp.get("/v1/people-tables")
@spec(
    "The lobby: public tables of people still waiting for players, newest first",
    response=listing("tables", SEATING),
    query=(LIMIT,),
)
def list_lobby() -> Response:
    srv = services()
    conn = srv.db.connection()
    now = srv.config.clock()
    found = lobby(conn, now, limit_arg())
    return jsonify({"tables": [seating_json(conn, s, now, invitation=False) for s in found]})


@bp.get("/v1/people-tables/<table_id>")
@spec(
    "A table of people and its seats (a private one: with its invitation token, or signed "
    "by one of its seated players, who also see the invitation)",
    response=SEATING,
    errors=(401, 403),
    query=(_INVITATION,),
)
def people_table(table_id: str) -> Response:
    srv = services()
    conn = srv.db.connection()
    s = get_seating(conn, table_id)
    invitation = _may_read(conn, srv.config, s)
    if not s.opened and s.full() is not None:
        # four were seated but the table's opening failed (the database or the log was
        # down): the next reader opens it
        _open_if_full(s)
        s = get_seating(conn, table_id)
    return jsonify(seating_json(conn, s, srv.config.clock(), invitation))


@bp.post("/v1/people-tables/<table_id>/seats")
@spec(
    "Take a seat at a table of people (a signed write; a private table's invitation in the "
    "body); the fourth seat taken opens the table and its hand 1",
    body=JOIN,
    response=SEATING,
    errors=(401, 403, 409),
    security="player",
)
def join_people_table(table_id: str) -> Response:
    srv = services()
    conn = srv.db.connection()
    signed = signed_writer(conn, srv.config)
    if signed is None:
        raise _unsigned()
    person, nonce = signed
    body = request_body()
    seat = Seat.parse(body["seat"])
    s = get_seating(conn, table_id)
    if not s.public and not _token_matches(s, body.get("invitation")):
        raise Forbidden(
            "invitation: a private table is joined with its invitation token (its link)",
            details={"path": "invitation"},
        )
    now = srv.config.clock()
    once(conn, f"{person} {nonce}", now, srv.config)
    if not take_seat(conn, table_id, seat, person, now):
        _refuse_seat(get_seating(conn, table_id), seat, person, now)
    srv.room.changes.touch()
    _open_if_full(s)
    fresh = get_seating(conn, table_id)
    return jsonify(seating_json(conn, fresh, srv.config.clock(), invitation=True))


def _refuse_seat(s: Seating, seat: Seat, person: str, now: float) -> None:
    """Why a seat could not be taken: always a 409 that says so."""
    status = s.status(now)
    if status == OPEN:
        raise Conflict("table: this table is full and playing", details={"path": "table"})
    if status == EXPIRED:
        raise Conflict(
            "table: this table expired before four were seated; it can no longer be joined",
            details={"path": "table", "status": EXPIRED},
        )
    mine = s.seat_of(person)
    if mine is not None:
        raise Conflict(
            f"seat: you sit at {mine.name} at this table already",
            details={"path": "seat", "seat": mine.name},
        )
    raise Conflict(
        f"seat: {seat.name} is taken; open seats: {[x.name for x in s.empty()]}",
        details={"path": "seat", "open_seats": [x.name for x in s.empty()]},
    )


@bp.post("/v1/people-tables/<table_id>/bots")
@spec(
    "Give empty seats of a table of people to house bots (its creator's signed write; when "
    "bot tables are on); the table opens when four are seated",
    body=BOTS,
    response=SEATING,
    errors=(401, 403, 409, 429),
    security="player",
)
def give_seats_to_bots(table_id: str) -> Response:
    srv = services()
    conn = srv.db.connection()
    if not srv.config.bot_tables:
        raise Forbidden("house bots are off on this service (Config.bot_tables)")
    signed = signed_writer(conn, srv.config)
    if signed is None:
        raise _unsigned()
    person, nonce = signed
    body = request_body()
    s = get_seating(conn, table_id)
    if person != s.creator:
        raise Forbidden(
            "Authorization: only the table's creator gives its seats to bots",
            details={"path": "Authorization"},
        )
    now = srv.config.clock()
    if s.status(now) != "waiting":
        _refuse_seat(s, Seat.N, person, now)
    wanted = [Seat.parse(x) for x in body.get("seats", [x.name for x in s.empty()])]
    taken = [x.name for x in wanted if s.seats[x] is not None]
    if taken or not wanted:
        raise Conflict(
            f"seats: {taken or 'none'} not empty; open seats: {[x.name for x in s.empty()]}",
            details={"path": "seats"},
        )
    house().check_room()
    once(conn, f"{person} {nonce}", now, srv.config)
    for seat, bot in house().register_bots(wanted).items():
        if not take_seat(conn, table_id, seat, bot, now):
            _refuse_seat(get_seating(conn, table_id), seat, bot, now)
    srv.room.changes.touch()
    _open_if_full(s)
    fresh = get_seating(conn, table_id)
    return jsonify(seating_json(conn, fresh, srv.config.clock(), invitation=True))


@bp.get("/v1/people-tables/<table_id>/stream")
@spec(
    "A table of people's seats as server-sent events (seating, bye) until it opens; a "
    "private table's with its invitation token, or a seated player's signed URL",
    response="text/event-stream",
    errors=(401, 403, 429),
    query=(
        _INVITATION,
        param("player", "query", {"type": "string"}),
        param("ts", "query", {"type": "integer"}),
        param("sig", "query", {"type": "string"}, desc="as a seat's stream (docs/api.md)"),
    ),
)
def people_table_stream(table_id: str) -> Response:
    srv = services()
    conn = srv.db.connection()
    s = get_seating(conn, table_id)
    if "player" in request.args:  # a seated player's signed URL: the seats' pool, per player
        reader = stream_reader(conn, srv.config, request.args.to_dict(), request.path)
        if s.seat_of(reader) is None:
            raise Forbidden(f"{reader} does not sit at this table", details={"path": "player"})
        release = slots().take("seat", reader)
    else:
        if not s.public and not _token_matches(s, request.args.get("invitation")):
            raise Forbidden(
                "invitation: a private table is followed with its invitation token",
                details={"path": "invitation"},
            )
        release = slots().take("watch", request.remote_addr or "unknown")

    def body() -> Iterator[str]:
        try:
            yield "retry: 3000\n\n"
            last: tuple[Any, ...] | None = None
            start = beat = time.monotonic()
            seen = srv.room.changes.version
            while not srv.room.changes.closed and not release.superseded.is_set():
                try:
                    c = srv.db.connection()
                    cur = get_seating(c, table_id)
                    now = srv.config.clock()
                    head = (tuple(cur.seats.values()), cur.status(now))
                    if head != last:
                        last = head
                        beat = time.monotonic()
                        yield sse("seating", seating_json(c, cur, now, invitation=False))
                        if cur.status(now) != "waiting":
                            yield sse("bye", {"reconnect": False, "status": cur.status(now)})
                            return
                except DatabaseUnavailable:
                    yield ": database unavailable\n\n"
                if time.monotonic() - start > STREAM_SECONDS:
                    yield sse("bye", {"reconnect": True})
                    return
                if time.monotonic() - beat > HEARTBEAT_SECONDS:
                    beat = time.monotonic()
                    yield ": ping\n\n"
                seen = srv.room.changes.wait(seen, WAKE_SECONDS)
            if release.superseded.is_set():
                yield sse("bye", {"reconnect": False, "superseded": True})
        finally:
            release()

    resp = Response(stream_with_context(body()), mimetype="text/event-stream")
    resp.call_on_close(release)
    resp.headers["Cache-Control"] = "no-store"
    resp.headers["X-Accel-Buffering"] = "no"
    return resp


@bp.get("/v1/players/<player_id>/tables")
@spec(
    "My tables: every table where the signing player sits, waiting, open or expired, "
    "newest first (a signed read by that player)",
    response=listing("tables", MY_TABLE),
    errors=(401, 403),
    query=(LIMIT,),
    security="player",
)
def my_tables(player_id: str) -> Response:
    srv = services()
    conn = srv.db.connection()
    reader = signed_reader(conn, srv.config)
    if reader is None:
        raise Unauthorized(
            "Authorization: a player's tables are read with that player's signature "
            "(Cayenne-Ed25519, cayenne-fairplay/read/v1)",
            details={"path": "Authorization"},
        )
    if reader != player_id:
        raise Forbidden(
            "Authorization: a player's tables are read by that player only",
            details={"path": "Authorization"},
        )
    limit = limit_arg()
    now = srv.config.clock()
    out: list[dict[str, Any]] = []
    for s in seatings_of(conn, player_id, limit):
        seat = s.seat_of(player_id)
        assert seat is not None
        item = seating_json(conn, s, now, invitation=True)
        item.update({"seat": seat.name, "hands": 0})
        out.append(item)
    for t in rows.tables_of(conn, player_id, limit):
        seat = t.seat_of(player_id)
        assert seat is not None
        out.append(
            {
                "id": t.id,
                "name": t.name,
                "seat": seat.name,
                "status": OPEN,
                "seats": {x.name: p for x, p in t.seats.items()},
                "names": rows.player_names(conn, list(t.seats.values())),
                "hands": t.hand_count,
                "created_at": t.created_at,
                "clock": t.clock,
                "links": {"play": f"/play/{t.id}", "table": f"/v1/tables/{t.id}"},
            }
        )
    out.sort(key=lambda x: str(x.get("created_at", "")), reverse=True)
    return jsonify({"tables": out[:limit]})
