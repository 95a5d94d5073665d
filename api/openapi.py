"""The OpenAPI 3.1 document of the service, built from compact route descriptions.

``tests/api/test_openapi.py`` checks that every Flask route is described here and
that every path here is a route, so the document and the code cannot drift apart.
"""

from __future__ import annotations

from typing import Any

__all__ = [
    "AFTER",
    "DOCUMENT",
    "ERROR",
    "HAND",
    "HAND_PATH",
    "HEX32",
    "LIMIT",
    "NULLABLE_STR",
    "NUMBER",
    "OBJ",
    "PLAYER",
    "REPORT_SUMMARY",
    "RETRY_AFTER",
    "SEAT",
    "SIGNED_EVENT",
    "TABLE",
    "TABLE_ID",
    "UPLOADED",
    "Schema",
    "build",
]

Schema = dict[str, Any]

ERROR: Schema = {
    "type": "object",
    "required": ["code", "message", "details"],
    "properties": {
        "code": {"type": "string"},
        "message": {"type": "string"},
        "details": {"type": "object"},
    },
}
OBJ: Schema = {"type": "object"}
SEAT: Schema = {"type": "string", "enum": ["N", "E", "S", "W"]}
HEX32: Schema = {"type": "string", "pattern": "^[0-9a-f]{64}$"}
NULLABLE_STR: Schema = {"type": ["string", "null"]}

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
TABLE: Schema = {
    "type": "object",
    "required": [
        "id",
        "name",
        "ruleset",
        "seats",
        "first_dealer",
        "hands",
        "current_hand",
        "links",
    ],
    "properties": {
        "id": {"type": "string"},
        "name": {"type": "string"},
        "ruleset": OBJ,
        "seats": {"type": "object", "additionalProperties": {"type": "string"}},
        "first_dealer": SEAT,
        "hands": {"type": "integer"},
        "current_hand": {"type": "integer"},
        "created_at": {"type": "string"},
        "links": OBJ,
    },
}
HAND: Schema = {
    "type": "object",
    "required": ["table", "hand", "phase", "dealer", "pack", "next_seq", "last_hash", "ceremony"],
    "properties": {
        "table": {"type": "string"},
        "hand": {"type": "integer"},
        "phase": {
            "type": "string",
            "enum": ["committing", "revealing", "calling", "playing", "over", "void"],
        },
        "dealer": SEAT,
        "pack": {"type": "integer"},
        "seats": OBJ,
        "waiting_for": {"type": "array", "items": SEAT},
        "next_seq": {"type": "integer"},
        "last_hash": HEX32,
        "ceremony": OBJ,
        "play": {"type": ["object", "null"]},
        "score_before": OBJ,
        "score_after": {"type": ["object", "null"]},
        "report_id": NULLABLE_STR,
        "started_at": {"type": "string"},
        "finished_at": NULLABLE_STR,
        "links": OBJ,
    },
}
SIGNED_EVENT: Schema = {
    "type": "object",
    "description": "An event of the log's format (docs/log.md), signed by the acting player",
    "required": [
        "v",
        "origin",
        "table",
        "hand",
        "seq",
        "prev",
        "actor",
        "key",
        "type",
        "body",
        "signature",
    ],
    "additionalProperties": False,
    "properties": {
        "v": {"const": 1},
        "origin": {"type": "string"},
        "table": {"type": "string"},
        "hand": {"type": "string", "description": "the hand number as text"},
        "seq": {"type": "integer", "minimum": 0},
        "prev": {"type": ["string", "null"]},
        "actor": {"type": "string", "description": "the player id"},
        "key": {"type": "string", "description": "the player's C2SP verifier key"},
        "type": {"type": "string", "enum": ["commit", "reveal", "call", "play"]},
        "body": {
            "type": "object",
            "description": "exactly commit: {commitment}; reveal: {seed}; call: {call}; "
            "play: {card, ace_high?}; the JSON Schema of each type is shipped in "
            "audit/log/schema/<type>.json (docs/log.md); anything else is 400",
        },
        "time": {
            "type": "string",
            "description": "optional: RFC 3339 in UTC with Z, e.g. 2024-05-01T12:30:00Z",
            "pattern": "^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}(\\.[0-9]{1,9})?Z$",
        },
        "signature": {"type": "string", "description": "base64 Ed25519 signature"},
    },
}
REPORT_SUMMARY: Schema = {
    "type": "object",
    "required": ["id", "verdict", "created_at"],
    "properties": {
        "id": {"type": "string"},
        "table": NULLABLE_STR,
        "hand": {"type": ["integer", "null"]},
        "verdict": {"type": "string"},
        "created_at": {"type": "string"},
        "source": {
            "type": "string",
            "enum": ["service", "upload"],
            "description": "service: a hand dealt and logged here; upload: a record sent to "
            "POST /v1/audits, audited as sent (never linked to a table of the service)",
        },
        "listed": {"type": "boolean", "description": "whether listings show it"},
        "codes": {"type": "array", "items": {"type": "string"}},
        "links": OBJ,
    },
}
UPLOADED: Schema = {
    **REPORT_SUMMARY,
    "required": ["id", "source", "listed", "report"],
    "properties": {**REPORT_SUMMARY["properties"], "report": OBJ},
}
RETRY_AFTER: Schema = {
    "Retry-After": {
        "description": "seconds until the client's rate limit has a token again",
        "schema": {"type": "integer"},
    }
}


def _param(name: str, where: str, schema: Schema, required: bool = False, desc: str = "") -> Schema:
    p: Schema = {
        "name": name,
        "in": where,
        "required": required or where == "path",
        "schema": schema,
    }
    if desc:
        p["description"] = desc
    return p


TABLE_ID = _param("table_id", "path", {"type": "string"})
NUMBER = _param("number", "path", {"type": "integer", "minimum": 1, "maximum": 2**31 - 1})
LIMIT = _param("limit", "query", {"type": "integer", "minimum": 1, "maximum": 200})
AFTER = _param("after", "query", {"type": "string"}, desc="the last id of the previous page")


def _json(schema: Schema) -> Schema:
    return {"application/json": {"schema": schema}}


def _op(
    summary: str,
    ok: int,
    body: Schema | str | None,
    errors: tuple[int, ...] = (),
    params: tuple[Schema, ...] = (),
    request: Schema | None = None,
    security: bool = False,
) -> Schema:
    if isinstance(body, str):
        content: Schema = {body: {"schema": {"type": "string"}}}
    else:
        content = _json(body or OBJ)
    responses: Schema = {str(ok): {"description": "success", "content": content}}
    # 503 DATABASE_UNAVAILABLE: any route, while the database cannot be reached.
    for status in sorted(set(errors) | {400, 404, 405, 413, 500, 503}):
        responses[str(status)] = {"description": "error", "content": _json(ERROR)}
        if status in (429, 503):
            responses[str(status)]["headers"] = RETRY_AFTER
    op: Schema = {"summary": summary, "responses": responses}
    if params:
        op["parameters"] = list(params)
    if request is not None:
        op["requestBody"] = {"required": True, "content": _json(request)}
    if security:
        op["security"] = [{"admin": []}]
    return op


def _list(key: str, item: Schema, cursor: str | None = None) -> Schema:
    properties: Schema = {key: {"type": "array", "items": item}}
    if cursor is not None:
        properties[cursor] = NULLABLE_STR
    return {"type": "object", "required": [key], "properties": properties}


HAND_PATH = "/v1/tables/{table_id}/hands/{number}"


def _with_ok(op: Schema, status: int, description: str, schema: Schema) -> Schema:
    """``op`` with a second success response."""
    responses = {str(status): {"description": description, "content": _json(schema)}}
    return {**op, "responses": {**responses, **op["responses"]}}


def build() -> Schema:
    """The OpenAPI 3.1 document."""
    paths: Schema = {
        "/healthz": {"get": _op("Liveness and schema version", 200, OBJ)},
        "/v1/openapi.json": {"get": _op("This document", 200, OBJ)},
        "/v1/players": {
            "post": _op(
                "Register a player's Ed25519 key (admin, or anyone when self-registration is "
                "on, rate-limited per client address)",
                201,
                PLAYER,
                (401, 403, 409, 429),
                request={
                    "type": "object",
                    "required": ["name", "public_key"],
                    "properties": {
                        "name": {"type": "string"},
                        "public_key": {
                            "type": "string",
                            "description": "C2SP verifier key text name+hash+base64; a "
                            "small-order or non-canonical Ed25519 key is refused (400 "
                            "LOG_KEY_WEAK)",
                        },
                    },
                },
                security=True,
            ),
            "get": _op(
                "List players", 200, _list("players", PLAYER, "next_after"), (), (LIMIT, AFTER)
            ),
        },
        "/v1/players/{player_id}": {
            "get": _op(
                "A player", 200, PLAYER, (), (_param("player_id", "path", {"type": "string"}),)
            )
        },
        "/v1/tables": {
            "post": _op(
                "Open a table of four players with a ruleset (admin)",
                201,
                TABLE,
                (401, 403, 422),
                request={
                    "type": "object",
                    "required": ["seats"],
                    "properties": {
                        "name": {"type": "string"},
                        "seats": {"type": "object", "additionalProperties": {"type": "string"}},
                        "ruleset": OBJ,
                        "first_dealer": SEAT,
                    },
                },
                security=True,
            ),
            "get": _op(
                "List tables", 200, _list("tables", TABLE, "next_after"), (), (LIMIT, AFTER)
            ),
        },
        "/v1/tables/{table_id}": {"get": _op("A table", 200, TABLE, (), (TABLE_ID,))},
        "/v1/tables/{table_id}/record": {
            "get": _op(
                "The table's finished hands as one cayenne-record/1", 200, OBJ, (), (TABLE_ID,)
            )
        },
        "/v1/tables/{table_id}/hands": {
            "get": _op("The table's hands", 200, _list("hands", OBJ), (), (TABLE_ID,))
        },
        HAND_PATH: {
            "get": _op(
                "A hand's public state (a ceremony that has waited the service's "
                "ceremony_timeout for a seat since its first commitment is voided first)",
                200,
                HAND,
                (),
                (TABLE_ID, NUMBER),
            )
        },
        HAND_PATH + "/events": {
            "get": _op(
                "The hand's signed events",
                200,
                _list("events", OBJ),
                (),
                (TABLE_ID, NUMBER),
            ),
            "post": _op(
                "Submit a signed commit, reveal, call or play",
                201,
                {
                    "type": "object",
                    "required": ["seq", "hash", "next_seq", "last_hash", "phase"],
                    "properties": {
                        "seq": {"type": "integer"},
                        "hash": HEX32,
                        "next_seq": {"type": "integer"},
                        "last_hash": HEX32,
                        "phase": {"type": "string"},
                    },
                },
                (401, 403, 409, 422),
                (TABLE_ID, NUMBER),
                request=SIGNED_EVENT,
            ),
        },
        HAND_PATH + "/void": {
            "post": _op(
                "Void a hand whose shuffle ceremony cannot finish (admin; the service also "
                "voids one that waits ceremony_timeout seconds for a seat)",
                200,
                {
                    "type": "object",
                    "required": ["table", "hand", "phase", "next_hand"],
                    "properties": {
                        "table": {"type": "string"},
                        "hand": {"type": "integer"},
                        "phase": {"const": "void"},
                        "next_hand": {"type": "integer"},
                    },
                },
                (401, 403, 409),
                (TABLE_ID, NUMBER),
                request={
                    "type": "object",
                    "required": ["reason"],
                    "properties": {"reason": {"type": "string", "minLength": 1, "maxLength": 200}},
                },
                security=True,
            )
        },
        HAND_PATH + "/seats/{seat}/cards": {
            "get": _op(
                "A seat's cards: before the end only to its player, on a signed request",
                200,
                OBJ,
                (401, 403),
                (TABLE_ID, NUMBER, _param("seat", "path", {"type": "string"})),
            )
        },
        HAND_PATH + "/record": {
            "get": _op("The finished hand's cayenne-record/1", 200, OBJ, (403,), (TABLE_ID, NUMBER))
        },
        HAND_PATH + "/report": {
            "get": _op("The finished hand's audit report", 200, OBJ, (), (TABLE_ID, NUMBER))
        },
        HAND_PATH + "/proof": {
            "get": _op("The finished hand's offline proof bundle", 200, OBJ, (), (TABLE_ID, NUMBER))
        },
        "/v1/audits": {
            "post": _with_ok(
                _op(
                    "Audit an uploaded cayenne-record/1 document. The report is unlisted "
                    "unless the administrator asks for listed=true, marked source=upload, "
                    "never linked to a table, and its id comes from the record's canonical "
                    "hash: the same record again answers 200 with the same report. Uploads "
                    "are rate-limited per client address (429 with Retry-After).",
                    201,
                    UPLOADED,
                    (401, 403, 422, 429),
                    (
                        _param(
                            "listed",
                            "query",
                            {"type": "string", "enum": ["true", "false", "1", "0", ""]},
                            desc="list the report (administrator only)",
                        ),
                    ),
                    request=OBJ,
                ),
                200,
                "the same record was uploaded before: its report",
                UPLOADED,
            ),
            "get": _op(
                "Query listed reports, newest first",
                200,
                _list("reports", REPORT_SUMMARY, "next_cursor"),
                (),
                (
                    _param("table", "query", {"type": "string"}),
                    _param("player", "query", {"type": "string"}),
                    _param("code", "query", {"type": "string"}),
                    _param("since", "query", {"type": "string"}, desc="ISO 8601 date or time"),
                    _param("until", "query", {"type": "string"}, desc="ISO 8601 date or time"),
                    LIMIT,
                    _param("cursor", "query", {"type": "string"}),
                ),
            ),
        },
        "/v1/audits/{report_id}": {
            "get": {
                **_op("A report", 200, OBJ, (), (_param("report_id", "path", {"type": "string"}),)),
                "responses": {
                    "200": {
                        "description": "the report as JSON, as the HTML page when the "
                        "client prefers text/html, as text when it prefers text/plain; an "
                        "uploaded record's report says so in each",
                        "content": {
                            "application/json": {"schema": UPLOADED},
                            "text/html": {"schema": {"type": "string"}},
                            "text/plain": {"schema": {"type": "string"}},
                        },
                    },
                    **{
                        str(s): {"description": "error", "content": _json(ERROR)}
                        for s in (400, 404, 405, 413, 500)
                    },
                },
            }
        },
        "/v1/audits/{report_id}/record": {
            "get": _op(
                "The audited record",
                200,
                OBJ,
                (),
                (_param("report_id", "path", {"type": "string"}),),
            )
        },
        "/v1/log/key": {"get": _op("The log's verifier key (C2SP text)", 200, "text/plain")},
        "/v1/log/checkpoint": {
            "get": _op(
                "The latest signed checkpoint, with its witnesses' cosignature lines",
                200,
                "text/plain",
                (),
                (_param("witnessed", "query", {"type": "integer", "minimum": 0, "maximum": 1000}),),
            )
        },
        "/v1/log/witnesses": {
            "get": _op(
                "The cosignature/v1 keys of the witnesses this service accepts (pinned by pages)",
                200,
                {
                    "type": "object",
                    "properties": {"witnesses": {"type": "array", "items": {"type": "string"}}},
                },
            )
        },
        "/v1/log/cosignatures": {
            "post": {
                **_op(
                    "A witness submits a checkpoint of this log with its cosignature/v1 line(s)",
                    200,
                    {
                        "type": "object",
                        "properties": {
                            "origin": {"type": "string"},
                            "size": {"type": "integer"},
                            "accepted": {"type": "array", "items": {"type": "string"}},
                            "cosigned_by": {"type": "array", "items": {"type": "string"}},
                        },
                    },
                    (403, 409, 422),
                ),
                "requestBody": {
                    "required": True,
                    "content": {"text/plain": {"schema": {"type": "string"}}},
                },
            }
        },
        "/v1/log/entries": {
            "get": _op(
                "Entries by range [start, end)",
                200,
                OBJ,
                (),
                (
                    _param("start", "query", {"type": "integer", "minimum": 0}),
                    _param("end", "query", {"type": "integer", "minimum": 0}),
                ),
            )
        },
        "/v1/log/proofs/inclusion": {
            "get": _op(
                "Inclusion proof of an entry",
                200,
                OBJ,
                (),
                (
                    _param("index", "query", {"type": "integer", "minimum": 0}, required=True),
                    _param("size", "query", {"type": "integer", "minimum": 1}),
                ),
            )
        },
        "/v1/log/proofs/consistency": {
            "get": _op(
                "Consistency proof between two tree sizes",
                200,
                OBJ,
                (),
                (
                    _param("from", "query", {"type": "integer", "minimum": 1}, required=True),
                    _param("to", "query", {"type": "integer", "minimum": 1}),
                ),
            )
        },
        "/v1/log/hands/{table_id}/{number}": {
            "get": _op(
                "Inclusion of every event of a hand (its proof bundle)",
                200,
                OBJ,
                (),
                (TABLE_ID, NUMBER),
            )
        },
        "/v1/bot-tables": {
            "post": {
                **_op(
                    "Open a table with the signing player at S and three house bots the "
                    "service runs (when bot tables are on; a signed write: its body and a nonce)",
                    201,
                    TABLE,
                    (401, 403, 429),
                    request={
                        "type": "object",
                        "properties": {"name": {"type": "string", "minLength": 1, "maxLength": 64}},
                        "additionalProperties": False,
                    },
                ),
                "security": [{"player": []}],
            }
        },
        "/v1/tables/{table_id}/stream": {
            "get": _op(
                "The table's public state as server-sent events (table, state, bye)",
                200,
                "text/event-stream",
                (429,),
                (TABLE_ID,),
            )
        },
        "/v1/tables/{table_id}/seats/{seat}/stream": {
            "get": _op(
                "The table as the seat's player sees it, with that seat's cards, as "
                "server-sent events; the URL carries a signed read (docs/api.md)",
                200,
                "text/event-stream",
                (401, 403, 429),
                (
                    TABLE_ID,
                    _param("seat", "path", {"type": "string"}),
                    _param("player", "query", {"type": "string"}, required=True),
                    _param("ts", "query", {"type": "integer"}, required=True),
                    _param(
                        "sig",
                        "query",
                        {"type": "string"},
                        required=True,
                        desc="base64 Ed25519 signature of cayenne-fairplay/read/v1, GET, the "
                        "path and ts, one per line",
                    ),
                ),
            )
        },
        "/": {"get": _op("Landing page", 200, "text/html")},
        "/play": {
            "get": _op("Make or import a key, register, sit down (player)", 200, "text/html")
        },
        "/play/{table_id}": {
            "get": _op("A table as its seated player plays it", 200, "text/html", (), (TABLE_ID,))
        },
        "/static/js/{name}": {
            "get": _op(
                "The project's ES modules (the browser's signer and verifier)",
                200,
                "text/javascript",
                (),
                (_param("name", "path", {"type": "string"}),),
            )
        },
        "/tables/{table_id}": {
            "get": _op("Table page (public state)", 200, "text/html", (), (TABLE_ID,))
        },
        "/tables/{table_id}/hands/{number}": {
            "get": _op("Hand page", 200, "text/html", (), (TABLE_ID, NUMBER))
        },
        "/reports/{report_id}": {
            "get": _op(
                "Report page",
                200,
                "text/html",
                (),
                (_param("report_id", "path", {"type": "string"}),),
            )
        },
    }
    from api.openapi_tournaments import paths as tournament_paths

    paths.update(tournament_paths(_op, _param, OBJ))
    return {
        "openapi": "3.1.0",
        "info": {
            "title": "Cayenne Fair-Play",
            "version": "1",
            "description": "Certified online tables of Cayenne, audit reports and log proofs "
            "(docs/api.md).",
        },
        "paths": paths,
        "components": {
            "securitySchemes": {
                "admin": {"type": "http", "scheme": "bearer"},
                "player": {
                    "type": "apiKey",
                    "in": "header",
                    "name": "Authorization",
                    "description": "Cayenne-Ed25519 player=ID,ts=UNIX,sig=BASE64 (docs/api.md)",
                },
            }
        },
    }


DOCUMENT: Schema = build()
