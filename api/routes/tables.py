"""Tables: four seated players, a ruleset, and the hands they play."""

from __future__ import annotations

from typing import Any

from flask import Blueprint, Response, jsonify, request, url_for

from api import rows
from api.auth import require_admin
from api.errors import BadRequest
from api.routes import json_body, limit_arg, services
from api.routes.players import check_name
from api.routes.tournaments import guard_table
from audit.errors import InvalidCardError, RecordError, RulesetError
from audit.rules.cards import Seat
from audit.rules.ruleset import Ruleset

__all__ = ["bp", "create_table", "get_table", "list_tables", "table_json", "table_record"]

bp = Blueprint("tables", __name__)


@bp.post("/v1/tables")
def create_table() -> tuple[Response, int, dict[str, str]]:
    s = services()
    require_admin(s.config)
    body = json_body()
    if not isinstance(body, dict):
        raise BadRequest("the body must be an object {name, seats, ruleset}", details={"path": "$"})
    name = check_name(body.get("name", "table"), "name")
    seats_obj = body.get("seats")
    if not isinstance(seats_obj, dict) or sorted(seats_obj) != ["E", "N", "S", "W"]:
        raise BadRequest(
            "seats: an object with the player ids at N, E, S and W", details={"path": "seats"}
        )
    seats: dict[Seat, str] = {}
    for seat in Seat:
        pid = seats_obj[seat.name]
        if not isinstance(pid, str):
            raise BadRequest(
                f"seats.{seat.name}: a player id", details={"path": f"seats.{seat.name}"}
            )
        seats[seat] = pid
    ruleset_obj = body.get("ruleset", {})
    if not isinstance(ruleset_obj, dict):
        raise BadRequest("ruleset: expected an object", details={"path": "ruleset"})
    try:
        ruleset = Ruleset.from_json(ruleset_obj, extensions=False).to_json()
    except RecordError as exc:  # the ruleset goes into the log: only known, valid settings
        raise RulesetError(exc.message, details={"path": exc.path}) from None
    try:
        first_dealer = Seat.parse(body.get("first_dealer", "N"))
    except InvalidCardError as exc:
        raise BadRequest(f"first_dealer: {exc.message}", details={"path": "first_dealer"}) from None
    table = s.room.create_table(name, seats, ruleset, first_dealer)
    location = url_for("tables.get_table", table_id=table.id)
    return jsonify(table_json(table)), 201, {"Location": location}


def table_json(table: rows.Table) -> dict[str, Any]:
    out = table.to_json()
    out["current_hand"] = table.hand_count
    out["links"] = {
        "self": url_for("tables.get_table", table_id=table.id),
        "current_hand": url_for("hands.get_hand", table_id=table.id, number=table.hand_count),
        "record": url_for("tables.table_record", table_id=table.id),
        "page": url_for("pages.table_page", table_id=table.id),
    }
    return out


@bp.get("/v1/tables")
def list_tables() -> Response:
    s = services()
    limit = limit_arg()
    tables = rows.list_tables(s.db.connection(), limit, request.args.get("after", ""))
    next_after = tables[-1].id if len(tables) == limit else None
    return jsonify({"tables": [table_json(t) for t in tables], "next_after": next_after})


@bp.get("/v1/tables/<table_id>")
def get_table(table_id: str) -> Response:
    guard_table(table_id)
    return jsonify(table_json(rows.get_table(services().db.connection(), table_id)))


@bp.get("/v1/tables/<table_id>/record")
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
