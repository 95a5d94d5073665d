"""Players: an Ed25519 public key and a display name."""

from __future__ import annotations

from flask import Blueprint, Response, jsonify, request, url_for

from api import inputs, rows
from api.auth import is_admin, require_admin
from api.ratelimit import Rate, take
from api.routes import limit_arg, request_body, services
from api.schemas import AFTER, LIMIT, NAME, Schema, listing, spec
from api.signing import parse_player_key, player_id

__all__ = [
    "MAX_NAME",
    "NEW_PLAYER",
    "PLAYER",
    "bp",
    "check_name",
    "create_player",
    "get_player",
    "list_players",
]

bp = Blueprint("players", __name__)

MAX_NAME = 64

PLAYER: Schema = {
    "type": "object",
    "required": ["id", "name", "public_key", "created_at"],
    "properties": {
        "id": {"type": "string"},
        "name": {"type": "string"},
        "public_key": {"type": "string", "description": "base64 of the raw 32-byte Ed25519 key"},
        "created_at": {"type": "string"},
    },
}
NEW_PLAYER: Schema = {
    "type": "object",
    "x-error": "the body must be an object {name, public_key}",
    "required": ["name", "public_key"],
    "properties": {
        "name": NAME,
        "public_key": {
            "type": "string",
            "title": "C2SP verifier key text name+hash+base64; a small-order or "
            "non-canonical Ed25519 key is refused (400 LOG_KEY_WEAK)",
            "x-check": "player_key",
        },
    },
}


def check_name(value: object, path: str) -> str:
    """A player's or a table's display name (:func:`api.inputs.check_name`)."""
    return inputs.check_name(value, path, MAX_NAME)


@bp.post("/v1/players")
@spec(
    "Register a player's Ed25519 key (admin, or anyone when self-registration is on, "
    "rate-limited per client address)",
    body=NEW_PLAYER,
    status=201,
    response=PLAYER,
    errors=(401, 403, 409, 429),
    security="admin",
)
def create_player() -> tuple[Response, int, dict[str, str]]:
    s = services()
    admin = is_admin(s.config)
    if not (s.config.self_registration or admin):
        require_admin(s.config)
    body = request_body()
    name = check_name(body["name"], "name")
    key = parse_player_key(body["public_key"])
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
    s.hand_log.register_player(player.id, key)
    with conn.transaction():
        rows.insert_player(conn, player)
    location = url_for("players.get_player", player_id=player.id)
    return jsonify(player.to_json()), 201, {"Location": location}


@bp.get("/v1/players")
@spec("List players", response=listing("players", PLAYER, "next_after"), query=(LIMIT, AFTER))
def list_players() -> Response:
    s = services()
    limit = limit_arg()
    after = request.args.get("after", "")
    players = rows.list_players(s.db.connection(), limit, after)
    next_after = players[-1].id if len(players) == limit else None
    return jsonify({"players": [p.to_json() for p in players], "next_after": next_after})


@bp.get("/v1/players/<player_id>")
@spec("A player", response=PLAYER)
def get_player(player_id: str) -> Response:
    return jsonify(rows.get_player(services().db.connection(), player_id).to_json())
