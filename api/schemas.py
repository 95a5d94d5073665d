"""A route's schemas, written once beside it: they validate its request and document it.

Each route carries a :class:`Spec` (the :func:`spec` decorator, under Flask's route
decorator): its summary, its JSON request body's schema, its responses, its parameters and
who may call it. :func:`api.openapi.build` turns the application's URL map and these specs
into the OpenAPI document; :func:`api.routes.request_body` validates a request's body
against its route's schema. A rule of the request is written in one place.

Why our own decorator over ``fastjsonschema`` rather than spectree, flask-smorest or
apispec: those validate a body before the view runs (spectree and flask-smorest) or build
the document from marshmallow or pydantic models (apispec), while the service answers
every refusal in a fixed order and wording (the administrator's token before the body,
the first field in the order the route names them, ``details.path`` the field's JSON
path), byte for byte as clients have seen it. A view here asks for its body where it
always did, and the schema's own words are the errors: what the document says a field
must be is what the refusal says (``description``, or ``x-error`` for a message of its
own). ``fastjsonschema`` is already the project's validator (the log's event schemas, the
record's); it checks each value here, compiled once per schema.

How a refusal is found (:func:`check`): the fields of an object are checked in the order
its ``properties`` lists them, as a view checks them one after the other:

* an object that is not an object: its ``x-error``, or else the refusal of its first
  required field (as a view that reads ``body.get(name)`` from a non-object says);
* ``minProperties``, ``maxProperties``, ``propertyNames``, ``additionalProperties``: the
  object's own refusal;
* a field: absent and required, or present and refused by its schema, its refusal;
* an object's other keywords (``if``/``then``, ``allOf``) and an array's ``items`` are
  shown, not checked: they describe what the route or the domain checks itself, later
  and in words of its own (a tournament's fields by its format, each record of a list);
* a value's refusal is ``x-error`` when the schema has one, else ``"{path}: {description}"``,
  else (no description) its ``x-check``'s: a schema's ``x-check`` names a check of
  :data:`CHECKS`, run after the keywords pass (a rule no JSON Schema keyword says, such as
  a display name's visible characters).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, TypeVar

import fastjsonschema

from api.errors import BadRequest
from api.inputs import check_name
from api.signing import parse_player_key
from audit.errors import FairplayError, InvalidCardError, RecordError, RulesetError
from audit.rules.cards import Seat
from audit.rules.ruleset import Ruleset

__all__ = [
    "AFTER",
    "CHECKS",
    "ERROR",
    "HEX32",
    "LIMIT",
    "NAME",
    "NULLABLE_STR",
    "OBJ",
    "REASON",
    "SEAT",
    "Schema",
    "Spec",
    "check",
    "listing",
    "param",
    "spec",
    "spec_of",
]

Schema = dict[str, Any]
F = TypeVar("F", bound=Callable[..., Any])

OBJ: Schema = {"type": "object"}
ERROR: Schema = {
    "type": "object",
    "required": ["code", "message", "details"],
    "properties": {
        "code": {"type": "string"},
        "message": {"type": "string"},
        "details": {"type": "object"},
    },
}
SEAT: Schema = {"type": "string", "enum": ["N", "E", "S", "W"]}
HEX32: Schema = {"type": "string", "pattern": "^[0-9a-f]{64}$"}
NULLABLE_STR: Schema = {"type": ["string", "null"]}
NAME: Schema = {
    "type": "string",
    "description": "a name of 1 to 64 characters",
    "x-check": "name",
}
"""A player's or a table's display name: 1 to 64 visible characters once stripped (no
control, format or separator character: :func:`api.inputs.check_name`)."""
REASON: Schema = {
    "type": "string",
    "minLength": 1,
    "maxLength": 200,
    "description": "a reason of 1 to 200 characters",
}
"""Why the administrator or the director acts (a void, a round ended early, an action)."""


def _name_check(value: Any, path: str, schema: Schema) -> None:
    check_name(value, path, int(schema.get("x-max-length") or schema.get("maxLength") or 64))


def _text_check(value: Any, path: str, schema: Schema) -> None:
    """Free text (a schedule): may be blank; else a name's characters."""
    if isinstance(value, str) and value.strip():
        _name_check(value, path, schema)


def _key_check(value: Any, path: str, schema: Schema) -> None:
    parse_player_key(value, path)


def _seat_check(value: Any, path: str, schema: Schema) -> None:
    try:
        Seat.parse(value)
    except InvalidCardError as exc:
        raise BadRequest(f"{path}: {exc.message}", details={"path": path}) from None


def _ruleset_check(value: Any, path: str, schema: Schema) -> None:
    if not isinstance(value, dict):
        raise BadRequest(f"{path}: expected an object", details={"path": path})
    try:  # a ruleset goes into the log: only known, valid settings (422 INVALID_RULESET)
        Ruleset.from_json(value, extensions=False)
    except RecordError as exc:
        raise RulesetError(exc.message, details={"path": exc.path}) from None


CHECKS: dict[str, Callable[[Any, str, Schema], None]] = {
    "name": _name_check,
    "text": _text_check,
    "player_key": _key_check,
    "seat": _seat_check,
    "ruleset": _ruleset_check,
}
"""Checks that JSON Schema has no keyword for, named by a schema's ``x-check``: each
raises the service's refusal naming ``path``."""


@dataclass(frozen=True)
class Spec:
    """What a route takes and answers (see the module's docstring)."""

    summary: str
    body: Schema | None = None
    """The JSON request body's schema (validated by :func:`api.routes.request_body`)."""
    body_type: str = "application/json"
    body_required: bool = True
    status: int = 200
    response: Schema | str = field(default_factory=lambda: dict(OBJ))
    """The success response's JSON schema, or the media type of a text response."""
    errors: tuple[int, ...] = ()
    """Error statuses beyond those of every route (400, 404, 405, 413, 500, 503)."""
    path: Mapping[str, Schema] = field(default_factory=dict)
    """Schemas of path variables, beyond what their converter says."""
    query: tuple[Schema, ...] = ()
    """Parameters beyond the path's: query parameters, a header (:func:`param`)."""
    security: str | tuple[str, ...] | None = None
    """Who may call it: a scheme of :data:`api.openapi._SECURITY`, or any one of several."""
    responses: Mapping[int, Schema] = field(default_factory=dict)
    """Response objects that replace or add to the generated ones."""


def spec(summary: str, **kwargs: Any) -> Callable[[F], F]:
    """Attach a :class:`Spec` to a view (put it under ``@bp.get``/``@bp.post``)."""

    def attach(view: F) -> F:
        view.spec = Spec(summary, **kwargs)  # type: ignore[attr-defined]
        return view

    return attach


def spec_of(view: Callable[..., Any]) -> Spec | None:
    """A view's :class:`Spec`, or ``None`` when it has none."""
    found = getattr(view, "spec", None)
    return found if isinstance(found, Spec) else None


def listing(key: str, item: Schema, cursor: str | None = None) -> Schema:
    """A page of ``key``: a list of ``item`` (and the ``cursor`` of the next page)."""
    properties: Schema = {key: {"type": "array", "items": item}}
    if cursor is not None:
        properties[cursor] = NULLABLE_STR
    return {"type": "object", "required": [key], "properties": properties}


def param(name: str, where: str, schema: Schema, required: bool = False, desc: str = "") -> Schema:
    """An OpenAPI parameter object."""
    p: Schema = {"name": name, "in": where, "required": required or where == "path"}
    p["schema"] = schema
    if desc:
        p["description"] = desc
    return p


LIMIT = param("limit", "query", {"type": "integer", "minimum": 1, "maximum": 200})
AFTER = param("after", "query", {"type": "string"}, desc="the last id of the previous page")


# ----------------------------------------------------------------------------- checking

_OBJECT_KEYWORDS = ("minProperties", "maxProperties", "propertyNames", "additionalProperties")
_compiled: dict[tuple[int, bool], tuple[Schema, Callable[[Any], Any]]] = {}


def _validator(schema: Schema, whole: bool = False) -> Callable[[Any], Any]:
    """``schema``'s own value keywords (``whole``: its object keywords), compiled once."""
    key = (id(schema), whole)
    hit = _compiled.get(key)
    if hit is None or hit[0] is not schema:
        if whole:
            part = {k: schema[k] for k in _OBJECT_KEYWORDS if k in schema}
            # its fields by name only (additionalProperties counts them; their values are
            # checked one by one, in order)
            part |= {
                "type": "object",
                "properties": dict.fromkeys(schema.get("properties", {}), {}),
            }
        else:
            skip = ("properties", "required", "items", *_OBJECT_KEYWORDS)
            part = {k: v for k, v in schema.items() if k not in skip and not k.startswith("x-")}
        hit = (schema, fastjsonschema.compile(part))
        _compiled[key] = hit
    return hit[1]


def _child(path: str, key: str) -> str:
    return key if path == "$" else f"{path}.{key}"


def _refusal(schema: Schema, path: str, value: Any = None) -> FairplayError:
    """The refusal of ``value`` at ``path``: ``x-error``, else the schema's ``description``,
    else its ``x-check``'s own (the check's wording for a value of the wrong type)."""
    if "x-error" in schema:
        return BadRequest(schema["x-error"], details={"path": path})
    named = schema.get("x-check")
    if named is not None and "description" not in schema:
        try:
            CHECKS[named](value, path, schema)
        except FairplayError as exc:
            return exc
    return BadRequest(f"{path}: {schema.get('description', 'not valid')}", details={"path": path})


def _absent(schema: Schema, path: str) -> FairplayError:
    """The refusal of a required field that is not there (as a view's ``body.get``)."""
    return _refusal(schema, path, None)


def check(schema: Schema, value: Any, path: str = "$") -> None:
    """Raise the service's 400 for the first part of ``value`` that ``schema`` refuses."""
    fields: Mapping[str, Schema] = schema.get("properties", {})
    if schema.get("type") == "object":
        if not isinstance(value, dict):
            required = schema.get("required", [])
            if "x-error" in schema or not required:
                raise _refusal(schema, path, value)
            raise _absent(fields[required[0]], _child(path, required[0]))
        if any(k in schema for k in _OBJECT_KEYWORDS) and not _passes(schema, value):
            raise _refusal(schema, path, value)
        required = schema.get("required", ())
        for name, sub in fields.items():
            if name in value:
                check(sub, value[name], _child(path, name))
            elif name in required:
                raise _absent(sub, _child(path, name))
    else:
        try:
            _validator(schema)(value)
        except fastjsonschema.JsonSchemaValueException:
            raise _refusal(schema, path, value) from None
        if isinstance(value, float) and _integer_only(schema):
            raise _refusal(schema, path, value)  # 1.0: JSON Schema's integer, not ours
    named = schema.get("x-check")
    if named is not None:
        CHECKS[named](value, path, schema)


def _integer_only(schema: Schema) -> bool:
    """Whether ``schema`` takes integers and no other number: the service reads ``1.0`` as
    a float and refuses it where it counts (rounds, seconds), while JSON Schema calls it
    an integer."""
    kinds = schema.get("type", ())
    kinds = [kinds] if isinstance(kinds, str) else kinds
    return "integer" in kinds and "number" not in kinds


def _passes(schema: Schema, value: Any) -> bool:
    try:
        _validator(schema, whole=True)(value)
    except fastjsonschema.JsonSchemaValueException:
        return False
    return True
