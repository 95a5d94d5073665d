"""One blueprint per resource, and the helpers they share."""

from __future__ import annotations

import base64
import binascii
import json
from typing import TYPE_CHECKING, Any

from flask import current_app, request
from werkzeug.exceptions import HTTPException

from api.errors import BadRequest, PayloadTooLarge
from api.inputs import parse_json
from api.schemas import check, spec_of

if TYPE_CHECKING:
    from api.services import Services

__all__ = [
    "MAX_LIMIT",
    "decode_cursor",
    "encode_cursor",
    "int_arg",
    "json_body",
    "limit_arg",
    "request_body",
    "services",
]

MAX_LIMIT = 200


def services() -> Services:
    return current_app.extensions["fairplay"]  # type: ignore[no-any-return]


def json_body(root: str = "$") -> Any:
    """The request's JSON body, whatever its declared content type (:func:`api.inputs.parse_json`:
    400 when it is not JSON, names a key twice, nests too deep or holds text that cannot be
    stored; paths in errors start at ``root``); 413 when a chunked body goes over the limit."""
    try:
        data = request.get_data(cache=True)
    except HTTPException:
        raise
    except Exception as exc:  # noqa: BLE001 - whatever the server's stream raises
        # A reset (OSError) or framing the server refuses while the body is read (gunicorn's
        # ParseException for a bad chunk size) is the client's request, not our fault.
        raise BadRequest(f"the body could not be read: {exc}", details={"path": root}) from None
    limit = current_app.config["MAX_CONTENT_LENGTH"]
    # A body without Content-Length (chunked) is cut at the limit by Werkzeug without a
    # word: one more byte from the server's stream says whether it went on.
    if (
        request.content_length is None
        and limit is not None
        and len(data) >= limit
        and request.environ["wsgi.input"].read(1)
    ):
        raise PayloadTooLarge(
            f"the request body is over the limit of {limit} bytes",
            details={"path": root, "limit": limit},
        )
    if not data:
        raise BadRequest("the request needs a JSON body", details={"path": root})
    return parse_json(data, root)


def request_body(root: str = "$") -> Any:
    """The request's JSON body (:func:`json_body`), checked against its route's schema
    (:func:`api.schemas.check`: 400 naming the first field it refuses)."""
    body = json_body(root)
    found = spec_of(current_app.view_functions[request.endpoint or ""])
    if found is None or found.body is None:
        raise LookupError(f"{request.endpoint}: no request schema (api.schemas.spec)")
    check(found.body, body, root)
    return body


def int_arg(name: str, default: int, lo: int, hi: int) -> int:
    raw = request.args.get(name)
    if raw is None:
        return default
    try:
        value = int(raw)
    except ValueError:
        raise BadRequest(f"{name}: {raw!r} is not an integer", details={"path": name}) from None
    if not lo <= value <= hi:
        raise BadRequest(f"{name}: must be between {lo} and {hi}", details={"path": name})
    return value


def limit_arg() -> int:
    return int_arg("limit", 50, 1, MAX_LIMIT)


def encode_cursor(values: list[Any]) -> str:
    return base64.urlsafe_b64encode(json.dumps(values).encode()).decode().rstrip("=")


def decode_cursor(text: str | None, size: int) -> list[Any] | None:
    if not text:
        return None
    try:
        values = parse_json(base64.urlsafe_b64decode(text + "=" * (-len(text) % 4)), "cursor")
    except (ValueError, binascii.Error, BadRequest):
        values = None
    if (
        not isinstance(values, list)
        or len(values) != size
        or not all(isinstance(v, str) for v in values)
    ):
        raise BadRequest("cursor: not a cursor this service gave out", details={"path": "cursor"})
    return values
