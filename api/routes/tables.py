"""Tables: four seated players, a ruleset, and the hands they play."""

from __future__ import annotations

from typing import Any

from flask import Blueprint, Response, jsonify, request, url_for

from api import rows
from api.auth import is_admin, require_admin
from api.clock import CLOCK, control_of
from api.routes import limit_arg, request_body, services
from api.routes.players import check_name
from api.routes.tournaments import guard_table
from api.schemas import AFTER, LIMIT, NAME, OBJ, SEAT, Schema, listing, spec
from audit.rules.cards import Seat
from audit.rules.ruleset import Ruleset

__all__ = [
    "CHAT",
    "NEW_TABLE",
    "TABLE",
    "TIME_CONTROL",
    "bp",
    "create_table",
    "get_table",
    "list_tables",
    "table_json",
    "table_record",
]

bp = Blueprint("tables", __name__)

TIME_CONTROL: Schema = {
    "type": ["object", "null"],
    "description": "the table's time control (an event's table: its event's), null for none",
    "required": ["seconds", "warning"],
    "properties": {"seconds": {"type": "integer"}, "warning": {"type": "integer"}},
}

TABLE: Schema = {
    "type": "object",
    "required": [
        "id",
        "name",
        "ruleset",
        "seats",
        "first_dealer",
        "hands",
        "current_hand",
        "links",
    ],
    "properties": {
        "id": {"type": "string"},
        "name": {"type": "string"},
        "ruleset": OBJ,
        "seats": {"type": "object", "additionalProperties": {"type": "string"}},
        "first_dealer": SEAT,
        "hands": {"type": "integer"},
        "current_hand": {"type": "integer"},
        "created_at": {"type": "string"},
        "clock": TIME_CONTROL,
        "chat": {"type": "boolean", "description": "whether the table has chat"},
        "links": OBJ,
    },
}
_PLAYER_ID: Schema = {"type": "string", "description": "a player id"}
CHAT: Schema = {
    "type": "boolean",
    "default": True,
    "x-error": "chat: true or false",
    "description": "whether the table has chat (its four players' messages to the table)",
}
NEW_TABLE: Schema = {
    "type": "object",
    "x-error": "the body must be an object {name, seats, ruleset}",
    "required": ["seats"],
    "properties": {
        "name": {**NAME, "default": "table"},
        "seats": {
            "type": "object",
            "x-error": "seats: an object with the player ids at N, E, S and W",
            "required": ["N", "E", "S", "W"],
            "propertyNames": SEAT,
            "minProperties": 4,
            "properties": {seat.name: _PLAYER_ID for seat in Seat},
        },
        "ruleset": {
            "type": "object",
            "description": "the table's rules (docs/rules.md); only known, valid settings "
            "(422 INVALID_RULESET)",
            "default": {},
            "x-check": "ruleset",
        },
        "first_dealer": {**SEAT, "default": "N", "x-check": "seat"},
        "clock": CLOCK,
        "chat": CHAT,
    },
}


@bp.post("/v1/tables")
@spec(
    "Open a table of four players with a ruleset (admin)",
    body=NEW_TABLE,
    status=201,
    response=TABLE,
    errors=(401, 403, 422),
    security="admin",
)
def create_table() -> tuple[Response, int, dict[str, str]]:
    s = services()
    require_admin(s.config)
    body = request_body()
    name = check_name(body.get("name", "table"), "name")
    seats = {seat: body["seats"][seat.name] for seat in Seat}
    ruleset = Ruleset.from_json(body.get("ruleset", {}), extensions=False).to_json()
    first_dealer = Seat.parse(body.get("first_dealer", "N"))
    control = control_of(body.get("clock"))
    chat = body.get("chat", True)
    table = s.room.create_table(name, seats, ruleset, first_dealer, clock=control, chat=chat)
    location = url_for("tables.get_table", table_id=table.id)
    return jsonify(table_json(table)), 201, {"Location": location}


def table_json(table: rows.Table) -> dict[str, Any]:
    out = table.to_json()
    if table.clock is None:  # an event's table: its event's time control, if any
        out["clock"] = services().room.time_control(table.id)
    out["chat"] = services().room.chat_on(table.id, table)  # an event's table: its event's
    out["current_hand"] = table.hand_count
    out["links"] = {
        "self": url_for("tables.get_table", table_id=table.id),
        "current_hand": url_for("hands.get_hand", table_id=table.id, number=table.hand_count),
        "record": url_for("tables.table_record", table_id=table.id),
        "page": url_for("pages.table_page", table_id=table.id),
    }
    return out


@bp.get("/v1/tables")
@spec(
    "List the public tables (the operator's token: every table)",
    response=listing("tables", TABLE, "next_after"),
    query=(LIMIT, AFTER),
)
def list_tables() -> Response:
    s = services()
    limit = limit_arg()
    # A private table (of people, or a tournament's) is never listed to a stranger: only
    # the operator sees every table; a player finds their own by GET /v1/players/{p}/tables.
    tables = rows.list_tables(
        s.db.connection(), limit, request.args.get("after", ""), everyone=is_admin(s.config)
    )
    next_after = tables[-1].id if len(tables) == limit else None
    return jsonify({"tables": [table_json(t) for t in tables], "next_after": next_after})


@bp.get("/v1/tables/<table_id>")
@spec("A table", response=TABLE)
def get_table(table_id: str) -> Response:
    guard_table(table_id)
    return jsonify(table_json(rows.get_table(services().db.connection(), table_id)))


@bp.get("/v1/tables/<table_id>/record")
@spec("The table's finished hands as one cayenne-record/1")
def table_record(table_id: str) -> Response:
    """Every finished hand of the table as one cayenne-record/1 document."""
    conn = services().db.connection()
    table = rows.get_table(conn, table_id)
    guard_table(table_id)
    hands = [h for h in rows.list_hands(conn, table_id) if h.record is not None]
    doc: dict[str, Any] = {
        "format": "cayenne-record/1",
        "table": table.id,
        "event": table.name,
        "players": {s.name: p for s, p in table.seats.items()},
        "ruleset": table.ruleset,
        "hands": [h.record["hands"][0] for h in hands if h.record],
    }
    return jsonify(doc)
