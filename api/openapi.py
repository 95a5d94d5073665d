"""The OpenAPI 3.1 document, generated from the application's URL map and each route's
:class:`api.schemas.Spec` (written beside the route: ``api/routes/*.py``).

Every route in the URL map is in the document, with the parameters its rule names, its
request body, its success response and its errors: every route may answer 400, 404, 405,
413, 500 and 503 (``DATABASE_UNAVAILABLE``, with ``Retry-After``, while the database
cannot be reached), and each adds its own. ``operationId`` is the route's endpoint
(``hands.post_event``). A route without a spec is a defect: :func:`build` refuses it, and
``tests/api/test_openapi.py`` checks the document against the OpenAPI 3.1 schema.
"""

from __future__ import annotations

import re

from flask import Flask

from api.schemas import ERROR, Schema, Spec, spec_of

__all__ = ["COMMON_ERRORS", "RETRY_AFTER", "build", "document", "openapi_path"]

COMMON_ERRORS = (400, 404, 405, 413, 500, 503)
"""What any route may answer: a bad request or text, an unknown path, a wrong method, a
body over the limit, a defect, and the database out of reach."""
RETRY_AFTER: Schema = {
    "Retry-After": {
        "description": "seconds until the client's rate limit has a token again",
        "schema": {"type": "integer"},
    }
}
_VARIABLE = re.compile(r"<(?:([a-z]+):)?([a-z_]+)>")
_CONVERTER_SCHEMAS: dict[str, Schema] = {"int": {"type": "integer"}}
_SECURITY: dict[str, Schema] = {
    "admin": {"type": "http", "scheme": "bearer"},
    "player": {
        "type": "apiKey",
        "in": "header",
        "name": "Authorization",
        "description": "Cayenne-Ed25519 player=ID,ts=UNIX,sig=BASE64 (docs/api.md)",
    },
    "director": {
        "type": "apiKey",
        "in": "header",
        "name": "Authorization",
        "description": "a granted director's signed request: Cayenne-Ed25519 "
        "player=d-ID,ts=UNIX[,nonce=HEX],sig=BASE64, a write with its nonce and body "
        "(docs/api.md, 'Who is who')",
    },
}


def openapi_path(rule: str) -> str:
    """A Flask rule as an OpenAPI path (``<int:number>`` → ``{number}``)."""
    return _VARIABLE.sub(r"{\2}", rule)


def _json(schema: Schema) -> Schema:
    return {"application/json": {"schema": schema}}


def _responses(s: Spec) -> Schema:
    if isinstance(s.response, str):
        content: Schema = {s.response: {"schema": {"type": "string"}}}
    else:
        content = _json(s.response)
    out: Schema = {str(s.status): {"description": "success", "content": content}}
    for status in sorted(set(s.errors) | set(COMMON_ERRORS)):
        out[str(status)] = {"description": "error", "content": _json(ERROR)}
        if status in (429, 503):
            out[str(status)]["headers"] = RETRY_AFTER
    for status, response in s.responses.items():
        out[str(status)] = response
    return out


def _operation(endpoint: str, rule: str, s: Spec) -> Schema:
    op: Schema = {"operationId": endpoint, "summary": s.summary, "responses": _responses(s)}
    params = [
        {
            "name": name,
            "in": "path",
            "required": True,
            "schema": s.path.get(name) or _CONVERTER_SCHEMAS.get(conv or "", {"type": "string"}),
        }
        for conv, name in _VARIABLE.findall(rule)
    ]
    params.extend(s.query)
    if params:
        op["parameters"] = params
    if s.body is not None:
        op["requestBody"] = {
            "required": s.body_required,
            "content": {s.body_type: {"schema": s.body}},
        }
    if s.security is not None:  # one scheme, or any one of several
        schemes = (s.security,) if isinstance(s.security, str) else s.security
        op["security"] = [{scheme: []} for scheme in schemes]
    return op


def build(app: Flask) -> Schema:
    """The OpenAPI 3.1 document of ``app``'s routes."""
    paths: dict[str, Schema] = {}
    missing = []
    for rule in sorted(app.url_map.iter_rules(), key=lambda r: r.rule):
        s = spec_of(app.view_functions[rule.endpoint])
        if s is None:
            missing.append(rule.rule)
            continue
        for method in sorted(rule.methods or ()):
            if method in ("HEAD", "OPTIONS"):
                continue
            ops = paths.setdefault(openapi_path(rule.rule), {})
            ops[method.lower()] = _operation(rule.endpoint, rule.rule, s)
    if missing:
        raise LookupError(f"routes without a spec (api.schemas.spec): {', '.join(missing)}")
    return {
        "openapi": "3.1.0",
        "info": {
            "title": "Cayenne Fair-Play",
            "version": "1",
            "description": "Certified online tables of Cayenne, audit reports and log proofs "
            "(docs/api.md).",
        },
        "paths": paths,
        "components": {"securitySchemes": _SECURITY},
    }


def document(app: Flask) -> Schema:
    """``app``'s document, built once."""
    cached: Schema | None = app.extensions.get("openapi")
    if cached is None:
        cached = app.extensions["openapi"] = build(app)
    return cached
