"""One blueprint per resource, and the helpers they share."""

from __future__ import annotations

import base64
import binascii
import json
from typing import TYPE_CHECKING, Any

from flask import current_app, request

from api.errors import BadRequest
from api.text import parse_json

if TYPE_CHECKING:
    from api import Services

MAX_LIMIT = 200


def services() -> Services:
    return current_app.extensions["fairplay"]  # type: ignore[no-any-return]


def json_body(root: str = "$") -> Any:
    """The request's JSON body, whatever its declared content type (:func:`api.text.parse_json`:
    400 when it is not JSON, nests too deep or holds text that cannot be stored; paths in
    errors start at ``root``)."""
    data = request.get_data(cache=True)
    if not data:
        raise BadRequest("the request needs a JSON body", details={"path": root})
    return parse_json(data, root)


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
