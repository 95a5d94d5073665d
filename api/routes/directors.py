"""Directors: the operator grants a director's key (the admin token), anyone lists them.

A grant is a logged event (api/directors.py); ``fairplay director add KEY`` does the same
on the service's database.
"""

from __future__ import annotations

from flask import Blueprint, Response, jsonify

from api.auth import require_admin
from api.directors import grant, granted
from api.errors import BadRequest
from api.routes import json_body, services
from api.routes.pages import page

__all__ = ["add_director", "bp", "console", "list_directors"]

bp = Blueprint("directors", __name__)


@bp.post("/v1/directors")
def add_director() -> tuple[Response, int]:
    """Grant a director's key ``{public_key}`` (the operator's admin token); 201 when new,
    200 when it was granted already."""
    s = services()
    require_admin(s.config)
    body = json_body()
    if not isinstance(body, dict) or set(body) != {"public_key"}:
        raise BadRequest("the body must be an object {public_key}", details={"path": "$"})
    out = grant(s.ledger, body["public_key"], s.room.now())
    return jsonify(out), 201 if out.pop("new") else 200


@bp.get("/v1/directors")
def list_directors() -> Response:
    """Every granted director: its id, key and the grant's log index."""
    rows = [
        {"director": d, "key": key, "granted_at": index}
        for d, (key, index) in granted(services().ledger).items()
    ]
    return jsonify({"directors": rows})


@bp.get("/director")
def console() -> Response:
    """The director's console: a director's key made in the browser, every ruling signed."""
    return page("director.html")
