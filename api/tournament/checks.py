"""A director's request, checked: each refusal names its field (``details["path"]``)."""

from __future__ import annotations

from typing import Any

from api.errors import NotFound
from api.inputs import check_name
from audit.errors import InvalidInput, NotFoundError

__all__ = ["MISSING", "TABLE_NAME_MAX", "bad", "integer", "reason", "round_named", "table_name"]

MISSING = (NotFoundError, NotFound)
"""A row that is not there, whichever layer says so (:mod:`api.rows` answers ``NotFound``)."""
TABLE_NAME_MAX = 64
"""The tables' own limit on a name (an event table's name is cut to fit)."""


def bad(path: str, problem: str) -> InvalidInput:
    return InvalidInput(f"{path}: {problem}", details={"path": path})


def integer(body: dict[str, Any], name: str, lo: int, hi: int, default: int | None = None) -> int:
    value = body.get(name, default)
    if not isinstance(value, int) or isinstance(value, bool) or not lo <= value <= hi:
        raise bad(name, f"must be an integer from {lo} to {hi}")
    return value


def reason(body: Any) -> str:
    text = body.get("reason") if isinstance(body, dict) else None
    if not isinstance(text, str) or not 1 <= len(text) <= 200:
        raise bad("reason", "a reason of 1 to 200 characters")
    return check_name(text, "reason", 200)  # certified: the names' one text rule


def round_named(body: Any) -> int:
    """The round a round action names: it makes the action idempotent (a retry or a
    concurrent copy of the request acts on that round, never on the next one)."""
    rnd = body.get("round") if isinstance(body, dict) else None
    if not isinstance(rnd, int) or isinstance(rnd, bool) or not 1 <= rnd <= 1000:
        raise bad("round", "the number of the round this action is for (1 to 1000)")
    return rnd


def table_name(event: str, rnd: int, table: int) -> str:
    """An event table's name, within the tables' own limit (the event's name cut short)."""
    tail = f" round {rnd} table {table}"
    return event[: TABLE_NAME_MAX - len(tail)].rstrip() + tail
