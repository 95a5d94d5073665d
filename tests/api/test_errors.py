"""Every error is JSON {code, message, details} with the right status; never HTML."""

from __future__ import annotations

import http.client
import json
from typing import Any

from tests.api.conftest import Running


def check_error(
    status_headers_body: tuple[int, dict[str, str], bytes], status: int, code: str
) -> dict[str, Any]:
    got, headers, body = status_headers_body
    assert got == status
    assert headers["content-type"].startswith("application/json")
    doc = json.loads(body)
    assert set(doc) == {"code", "message", "details"}
    assert doc["code"] == code
    assert b"Traceback" not in body and b"<html" not in body.lower()
    return doc


def test_unknown_path_is_json_404(service: Running) -> None:
    check_error(service.client().raw("GET", "/v1/nothing-here"), 404, "NOT_FOUND")


def test_wrong_method_is_json_405_with_allow(service: Running) -> None:
    status, headers, body = service.client().raw("DELETE", "/v1/players")
    check_error((status, headers, body), 405, "METHOD_NOT_ALLOWED")
    assert "GET" in headers["allow"] and "POST" in headers["allow"]


def test_oversized_body_is_json_413(make_service: Any) -> None:
    svc = make_service(max_body=2048)
    big = {"format": "cayenne-record/1", "hands": [], "x-pad": "x" * 5000}
    check_error(svc.client().raw("POST", "/v1/audits", big), 413, "PAYLOAD_TOO_LARGE")


def test_body_that_is_not_json_is_400(service: Running) -> None:
    c = service.client()
    check_error(c.raw("POST", "/v1/players", None, c.admin()), 400, "BAD_REQUEST")
    h = http.client.HTTPConnection(c.host, c.port)
    h.request("POST", "/v1/audits", body=b"{not json", headers={"Content-Type": "application/json"})
    r = h.getresponse()
    check_error((r.status, {k.lower(): v for k, v in r.getheaders()}, r.read()), 400, "BAD_REQUEST")


def test_unexpected_exception_is_json_500_without_traceback(make_service: Any) -> None:
    svc = make_service()

    def boom() -> str:
        raise RuntimeError("secret internal detail")

    svc.app.add_url_rule("/boom", "boom", boom)
    status, headers, body = svc.client().raw("GET", "/boom")
    doc = check_error((status, headers, body), 500, "INTERNAL_ERROR")
    assert "secret internal detail" not in doc["message"]


def test_healthz(service: Running) -> None:
    doc = service.client().call("GET", "/healthz")
    assert doc["status"] == "ok" and doc["database"] == "sqlite" and doc["schema_version"] >= 1
