"""Directors: the operator grants a director's key (the admin token), anyone lists them.

A grant is a logged event (api/directors.py); ``fairplay director add KEY`` does the same
on the service's database.
"""

from __future__ import annotations

from flask import Blueprint, Response, jsonify

from api.auth import require_admin
from api.directors import grant, granted
from api.routes import request_body, services
from api.routes.pages import page
from api.schemas import Schema, listing, spec

__all__ = ["DIRECTOR", "GRANT", "add_director", "bp", "console", "list_directors"]

bp = Blueprint("directors", __name__)


GRANT: Schema = {
    "type": "object",
    "x-error": "$: the body must be an object {public_key}",
    "required": ["public_key"],
    "additionalProperties": False,
    "properties": {
        "public_key": {
            "type": "string",
            "description": "the director's C2SP verifier key text (name+hash+base64)",
        }
    },
}
DIRECTOR: Schema = {
    "type": "object",
    "required": ["director", "key", "granted_at"],
    "properties": {
        "director": {"type": "string", "pattern": "^d-[0-9a-f]{20}$"},
        "key": {"type": "string"},
        "granted_at": {"type": "integer", "description": "the grant's log index"},
    },
}


@bp.post("/v1/directors")
@spec(
    "Grant a director's key (admin; logged as a director_grant event): 201 when new, 200 "
    "when it was granted already",
    body=GRANT,
    status=201,
    response=DIRECTOR,
    errors=(401, 403),
    security="admin",
)
def add_director() -> tuple[Response, int]:
    """Grant a director's key ``{public_key}`` (the operator's admin token); 201 when new,
    200 when it was granted already."""
    s = services()
    require_admin(s.config)
    body = request_body()
    out = grant(s.hand_log, body["public_key"], s.room.now())
    return jsonify(out), 201 if out.pop("new") else 200


@bp.get("/v1/directors")
@spec(
    "The granted directors: id, key, the grant's log index", response=listing("directors", DIRECTOR)
)
def list_directors() -> Response:
    """Every granted director: its id, key and the grant's log index."""
    rows = [
        {"director": d, "key": key, "granted_at": index}
        for d, (key, index) in granted(services().hand_log).items()
    ]
    return jsonify({"directors": rows})


@bp.get("/director")
@spec(
    "The director's console: a director's key, every ruling signed, the tables live, the findings",
    response="text/html",
)
def console() -> Response:
    """The director's console: a director's key made in the browser, every ruling signed."""
    return page("director.html")
