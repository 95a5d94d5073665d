"""The OpenAPI document describes exactly the routes the application serves."""

from __future__ import annotations

import re

from api.openapi import DOCUMENT
from tests.api.conftest import Running


def flask_paths(service: Running) -> set[tuple[str, str]]:
    out = set()
    for rule in service.app.url_map.iter_rules():
        path = re.sub(r"<(?:[a-z]+:)?([a-z_]+)>", r"{\1}", rule.rule)
        for method in rule.methods or ():
            if method not in ("HEAD", "OPTIONS"):
                out.add((path, method.lower()))
    return out


def test_document_and_routes_match(service: Running) -> None:
    documented = {(p, m) for p, ops in DOCUMENT["paths"].items() for m in ops}
    assert documented == flask_paths(service)


def test_served_document_is_openapi_3_1(service: Running) -> None:
    doc = service.client().call("GET", "/v1/openapi.json")
    assert doc["openapi"].startswith("3.1") and doc == DOCUMENT
    for path, ops in doc["paths"].items():
        params = set(re.findall(r"{([a-z_]+)}", path))
        for op in ops.values():
            declared = {p["name"] for p in op.get("parameters", []) if p["in"] == "path"}
            assert declared == params, path
