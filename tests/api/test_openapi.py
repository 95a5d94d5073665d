"""The OpenAPI document is generated from the routes: every route in the URL map is in it
with its schemas, and it is a valid OpenAPI 3.1 document."""

from __future__ import annotations

import re

import pytest
from openapi_spec_validator import validate
from openapi_spec_validator.validation.exceptions import OpenAPIValidationError

from api.openapi import COMMON_ERRORS, build, document, openapi_path
from api.schemas import REASON, spec_of
from tests.api.conftest import Running

TAKES_NO_BODY = {"tournaments.start"}
"""POST routes whose body may be left out."""


def flask_paths(service: Running) -> set[tuple[str, str]]:
    out = set()
    for rule in service.app.url_map.iter_rules():
        path = re.sub(r"<(?:[a-z]+:)?([a-z_]+)>", r"{\1}", rule.rule)
        for method in rule.methods or ():
            if method not in ("HEAD", "OPTIONS"):
                out.add((path, method.lower()))
    return out


def test_document_and_routes_match(service: Running) -> None:
    doc = document(service.app)
    documented = {(p, m) for p, ops in doc["paths"].items() for m in ops}
    assert documented == flask_paths(service)


def test_every_route_has_its_schemas(service: Running) -> None:
    """A request schema where the route takes a body, a success response with its content,
    and the errors every route may answer (503 DATABASE_UNAVAILABLE with Retry-After)."""
    for rule in service.app.url_map.iter_rules():
        spec = spec_of(service.app.view_functions[rule.endpoint])
        assert spec is not None, rule.rule
        methods = set(rule.methods or ()) - {"HEAD", "OPTIONS"}
        for method in methods:
            op = document(service.app)["paths"][openapi_path(rule.rule)][method.lower()]
            assert op["operationId"] == rule.endpoint
            if method == "POST":
                body = op["requestBody"]
                assert body["required"] is (rule.endpoint not in TAKES_NO_BODY), rule.rule
                assert len(body["content"]) == 1 and "schema" in next(
                    iter(body["content"].values())
                )
            else:
                assert "requestBody" not in op, rule.rule
            ok = [s for s in op["responses"] if s.startswith("2")]
            assert ok and all("content" in op["responses"][s] for s in ok), rule.rule
            assert {str(s) for s in COMMON_ERRORS} <= set(op["responses"]), rule.rule
            assert "Retry-After" in op["responses"]["503"]["headers"], rule.rule


def test_a_route_without_a_spec_is_refused(service: Running) -> None:
    app = service.app
    view = app.view_functions["meta.healthz"]
    saved = view.spec  # type: ignore[attr-defined]
    del view.spec  # type: ignore[attr-defined]
    try:
        with pytest.raises(LookupError, match="/healthz"):
            build(app)
    finally:
        view.spec = saved  # type: ignore[attr-defined]


def test_the_document_is_valid_openapi_3_1(service: Running) -> None:
    validate(document(service.app))
    broken = build(service.app)
    broken["paths"]["/healthz"]["get"]["responses"]["200"] = {"content": {}}  # no description
    with pytest.raises(OpenAPIValidationError):
        validate(broken)


def test_one_reason_rule_documents_and_refuses(service: Running) -> None:
    """The void's reason in the document is the schema that refuses a bad one."""
    doc = document(service.app)
    body = doc["paths"]["/v1/tables/{table_id}/hands/{number}/void"]["post"]["requestBody"]
    assert body["content"]["application/json"]["schema"]["properties"]["reason"] == REASON


def test_served_document_is_openapi_3_1(service: Running) -> None:
    doc = service.client().call("GET", "/v1/openapi.json")
    assert doc["openapi"].startswith("3.1") and doc == document(service.app)
    assert set(doc["components"]["securitySchemes"]) == {"admin", "director", "player"}
    for path, ops in doc["paths"].items():
        params = set(re.findall(r"{([a-z_]+)}", path))
        for op in ops.values():
            declared = {p["name"] for p in op.get("parameters", []) if p["in"] == "path"}
            assert declared == params, path
