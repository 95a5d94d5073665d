"""The JSON Schemas of logged events, shipped in ``audit/log/schema/`` (docs/log.md).

Two gates, both applied *before* an event is signed into a log:

- :func:`admit_event`: the envelope (``event.json``) that every event of any log has,
  with bounded strings, ``time`` in RFC 3339 UTC (``...Z``), and the whole canonical
  event at most :data:`MAX_EVENT_BYTES`. :meth:`audit.log.store.Log.append` and
  :func:`audit.log.events.sign_event` apply it.
- :func:`check_cayenne_event`: one schema per Cayenne event type (``open``, ``commit``,
  ``reveal``, ``call``, ``play``, ``claim``, ``claim_answer``, ``server_reveal``, ``end``,
  ``void``, ``chat``), each the envelope
  plus the exact body of that type; nothing else is accepted. The service applies it to
  every event it receives or writes.

Reading an existing log (``fairplay log verify``, bundles, ``Log.entries``) checks the
structure and the signatures only (:func:`audit.log.events.check_event`), so a log written
before these schemas still verifies: the schemas are an admission rule, not a property
of history. Errors are :class:`EventError` naming the JSON path (``event.body.seed``).
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Mapping
from datetime import datetime
from functools import cache
from importlib import resources
from typing import Any

import fastjsonschema

from audit.log.canonical import canonical_json
from audit.log.errors import EventError

__all__ = [
    "ALL_TYPES",
    "BASE_URI",
    "CAYENNE_TYPES",
    "CLOCK_TYPES",
    "MAX_EVENT_BYTES",
    "TOURNAMENT_TYPES",
    "admit_event",
    "check_cayenne_event",
    "is_utc_time",
    "schema",
]

MAX_EVENT_BYTES = 65536
"""The largest canonical JSON of an event the log admits (64 KiB: the largest event the
service writes, a 100-table round's seating with 36 boards a table, is about 36 KiB)."""

BASE_URI = "https://cayenne-fairplay.example/schema/log/"
CAYENNE_TYPES = (
    "open",
    "commit",
    "reveal",
    "call",
    "play",
    "claim",
    "claim_answer",
    "server_reveal",
    "end",
    "void",
    "chat",
)
"""The event types of a Cayenne table, each with its schema ``<type>.json`` (``chat`` is
the table's messages, in their own chain, hand ``chat``)."""
TOURNAMENT_TYPES = (
    "tournament_create",
    "tournament_registration",
    "tournament_beacon",
    "tournament_start",
    "tournament_deal",
    "tournament_round",
    "tournament_round_end",
    "tournament_substitute",
    "tournament_adjust",
    "tournament_withdraw",
    "tournament_void_board",
    "tournament_remove",
    "tournament_end",
    "tournament_register",
    "tournament_reveal",
    "tournament_leave",
    "board_open",
    "director_grant",
)
"""The event types of a tournament (docs/tournaments.md, docs/log.md): its own chain's,
its entrants' and a duplicate board's opening, each with its schema ``<type>.json``."""
CLOCK_TYPES = ("clock_warning", "clock_expired")
"""The clock's events in a hand's chain (docs/tournaments.md, "The clock"): the server's
warning to the seat to act and the expiry of its time, after which the house plays it."""
ALL_TYPES = CAYENNE_TYPES + TOURNAMENT_TYPES + CLOCK_TYPES

_RFC3339_UTC = re.compile(r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,9})?Z$")


def schema(name: str) -> dict[str, Any]:
    """A shipped schema by file stem (``"event"``, ``"commit"``, ...)."""
    text = resources.files("audit.log.schema").joinpath(f"{name}.json").read_text("utf-8")
    obj: dict[str, Any] = json.loads(text)
    return obj


def _resolve(uri: str) -> dict[str, Any]:
    if not uri.startswith(BASE_URI) or not uri.endswith(".json"):
        raise EventError(f"schema reference {uri!r} is not a shipped event schema")
    return schema(uri[len(BASE_URI) : -len(".json")])


def is_utc_time(text: object) -> bool:
    """RFC 3339 in UTC written with ``Z``, and a real date and time (no 24:00, no Feb 30)."""
    if not isinstance(text, str) or not _RFC3339_UTC.match(text):
        return False
    whole, _, _ = text[:-1].partition(".")
    try:
        datetime.strptime(whole, "%Y-%m-%dT%H:%M:%S")
    except ValueError:
        return False
    return True


@cache
def _validator(name: str) -> Callable[[Any], Any]:
    return fastjsonschema.compile(
        schema(name),
        handlers={"https": _resolve},
        formats={"date-time": is_utc_time},
    )


def _path(parts: list[str] | None, root: str) -> str:
    """``['data', 'body', 'missing', '0']`` → ``event.body.missing[0]``."""
    out = root
    for part in (parts or ["data"])[1:]:
        out += f"[{part}]" if part.isdigit() else f".{part}"
    return out


def _at(path: str, problem: str) -> EventError:
    return EventError(f"{path}: {problem}", details={"path": path})


def _error(exc: fastjsonschema.JsonSchemaValueException, root: str) -> EventError:
    path = _path(exc.path, root)
    definition = exc.definition if isinstance(exc.definition, dict) else {}
    value = exc.value
    shown = repr(value) if len(repr(value)) <= 60 else repr(value)[:57] + "..."
    if exc.rule == "required" and isinstance(value, dict):
        missing = [k for k in (exc.rule_definition or []) if k not in value]
        return _at(f"{path}.{missing[0] if missing else '?'}", "missing")
    if exc.rule == "additionalProperties" and isinstance(value, dict):
        known = definition.get("properties", {})
        extra = sorted(k for k in value if k not in known)
        name = extra[0] if extra else "?"
        return _at(f"{path}.{name}", f"unknown field (expected one of {sorted(known)})")
    custom = definition.get("x-message")
    if custom:
        return _at(path, f"{shown} {custom}")
    if exc.rule == "maxLength":
        return _at(path, f"longer than {exc.rule_definition} characters")
    if exc.rule in ("minItems", "maxItems"):
        most = "at least" if exc.rule == "minItems" else "at most"
        return _at(path, f"must have {most} {exc.rule_definition} items")
    if exc.rule == "maxProperties":
        return _at(path, f"more than {exc.rule_definition} fields")
    if exc.rule == "type":
        return _at(path, f"{shown} is not of type {exc.rule_definition}")
    if exc.rule in ("minimum", "maximum"):
        return _at(path, f"{shown} is out of range ({exc.rule} {exc.rule_definition})")
    if exc.rule == "const":
        return _at(path, f"must be {exc.rule_definition!r}")
    message = exc.message
    if message.startswith("data"):
        message = message.split(" ", 1)[-1]
    return _at(path, message)


def _check(name: str, event: Any, root: str) -> None:
    if not isinstance(event, Mapping):
        raise _at(root, "must be a JSON object")
    try:
        _validator(name)(dict(event))
    except fastjsonschema.JsonSchemaValueException as exc:
        raise _error(exc, root) from None


def admit_event(event: Any, *, root: str = "event", canonical: bytes | None = None) -> None:
    """Raise :class:`EventError` unless ``event`` fits the envelope every logged event has.

    ``canonical`` is the event's canonical JSON when the caller has it (for the size
    bound; computed here otherwise).
    """
    _check("event", event, root)
    if canonical is None:
        canonical = canonical_json(event)
    if len(canonical) > MAX_EVENT_BYTES:
        raise _at(root, f"{len(canonical)} bytes of canonical JSON, more than {MAX_EVENT_BYTES}")


def check_cayenne_event(event: Any, *, root: str = "event") -> None:
    """Raise :class:`EventError` unless ``event`` is exactly one of :data:`CAYENNE_TYPES`,
    :data:`TOURNAMENT_TYPES` or :data:`CLOCK_TYPES`.

    The envelope's rules hold too (``<type>.json`` refers to ``event.json``); the size
    bound is :func:`admit_event`'s, applied by every append.
    """
    if not isinstance(event, Mapping):
        raise _at(root, "must be a JSON object")
    kind = event.get("type")
    if kind not in ALL_TYPES:
        raise _at(f"{root}.type", f"{kind!r} is not one of {list(ALL_TYPES)}")
    _check(str(kind), event, root)
