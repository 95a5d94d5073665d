"""The vendored BLS bundle (docs/browser.md, "Third-party code") is served from this origin
as a module, with nosniff, under /static/vendor/; nothing else is served from there."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from flask.testing import FlaskClient

from api import create_app
from tests.api.conftest import ADMIN
from tests.js.test_js import BLS_BUNDLE, bls_bundle


@pytest.fixture
def client(tmp_path: Path) -> Iterator[FlaskClient]:
    app = create_app({"data_dir": str(tmp_path / "data"), "admin_token": ADMIN, "testing": True})
    try:
        yield app.test_client()
    finally:
        app.extensions["fairplay"].close()


def test_the_bls_bundle_is_served_as_a_module(client: FlaskClient) -> None:
    if not bls_bundle():
        pytest.skip("the BLS bundle is not built (make)")
    resp = client.get("/static/vendor/bls.js")
    assert resp.status_code == 200
    assert resp.mimetype == "text/javascript"
    assert resp.headers["X-Content-Type-Options"] == "nosniff"
    assert resp.headers["Cross-Origin-Resource-Policy"] == "same-origin"
    assert resp.data == BLS_BUNDLE.read_bytes()
    assert b"bls12_381" in resp.data


@pytest.mark.parametrize(
    "path",
    [
        "/static/vendor/nope.js",
        "/static/vendor/..%2Fjs%2Fdrand.js",
        "/static/vendor/BLS.JS",
        "/static/vendor/bls.js.map",
    ],  # fmt: skip
)
def test_nothing_else_is_served_from_the_vendor_folder(client: FlaskClient, path: str) -> None:
    resp = client.get(path)
    assert resp.status_code == 404
    assert resp.is_json and resp.json["code"]
