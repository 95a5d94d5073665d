"""Players: an Ed25519 public key and a display name."""

from __future__ import annotations

from flask import Blueprint, Response, jsonify, request, url_for

from api import inputs, rows
from api.auth import is_admin, require_admin
from api.errors import BadRequest
from api.ratelimit import Rate, take
from api.routes import json_body, limit_arg, services
from api.signing import parse_player_key, player_id

__all__ = ["MAX_NAME", "bp", "check_name", "create_player", "get_player", "list_players"]

bp = Blueprint("players", __name__)

MAX_NAME = 64


def check_name(value: object, path: str) -> str:
    """A player's or a table's display name (:func:`api.inputs.check_name`)."""
    return inputs.check_name(value, path, MAX_NAME)


@bp.post("/v1/players")
def create_player() -> tuple[Response, int, dict[str, str]]:
    s = services()
    admin = is_admin(s.config)
    if not (s.config.self_registration or admin):
        require_admin(s.config)
    body = json_body()
    if not isinstance(body, dict):
        raise BadRequest("the body must be an object {name, public_key}", details={"path": "$"})
    name = check_name(body.get("name"), "name")
    key = parse_player_key(body.get("public_key"))
    if not admin:  # a self-registration: limited per client address (api/ratelimit.py)
        rate = Rate(s.config.register_burst, s.config.register_per_hour)
        take(
            s.db.connection(), "register", request.remote_addr or "unknown", rate, s.config.clock()
        )
    player = rows.Player(player_id(key), name, key.text(), rows.now_iso(s.config.clock()))
    conn = s.db.connection()
    # A refused registration changes nothing: the conflict is found before the log's key
    # table is written. (The id is derived from the raw key, so the same key under
    # another name is the same player.) Should a crash fall between the two writes, the
    # retry finds no player, registers the same key again (a no-op) and stores the row.
    rows.check_new_player(conn, player)
    s.ledger.register_player(player.id, key)
    with conn.transaction():
        rows.insert_player(conn, player)
    location = url_for("players.get_player", player_id=player.id)
    return jsonify(player.to_json()), 201, {"Location": location}


@bp.get("/v1/players")
def list_players() -> Response:
    s = services()
    limit = limit_arg()
    after = request.args.get("after", "")
    players = rows.list_players(s.db.connection(), limit, after)
    next_after = players[-1].id if len(players) == limit else None
    return jsonify({"players": [p.to_json() for p in players], "next_after": next_after})


@bp.get("/v1/players/<player_id>")
def get_player(player_id: str) -> Response:
    return jsonify(rows.get_player(services().db.connection(), player_id).to_json())
