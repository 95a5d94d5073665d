"""Uploaded records: unlisted, marked as uploaded, never a service table, content-addressed;
uploads and self-registrations rate-limited per client address (with a fake clock)."""

from __future__ import annotations

import copy
import json
import random
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from api import create_app
from api.bot import TableBots
from api.client import Identity
from api.ratelimit import Rate, refill
from tests.api.conftest import Running

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = json.loads((ROOT / "audit" / "record" / "examples" / "worked-example.json").read_text())


@pytest.fixture
def played(service: Running) -> tuple[TableBots, dict[str, Any]]:
    """A table of the service with one finished hand, and that hand's record."""
    bots = TableBots.open(service.client(), random.Random(5), name="real")
    bots.play_hand(1)
    doc: dict[str, Any] = bots.client.call("GET", f"/v1/tables/{bots.table}/hands/1/record")
    return bots, doc


def test_an_upload_is_unlisted_marked_and_not_linked_to_the_table_it_names(
    service: Running, played: tuple[TableBots, dict[str, Any]]
) -> None:
    bots, record = played
    stranger = service.client(admin=False)
    forged = copy.deepcopy(record)  # names the service's table and its players
    forged["event"] = "forged upload"
    status, headers, body = stranger.raw("POST", "/v1/audits", forged)
    assert status == 201
    created = json.loads(body)
    rid = created["id"]
    assert rid.startswith("u-") and len(rid) == 34
    assert created["source"] == "upload" and created["listed"] is False
    assert created["table"] is None and created["hand"] is None
    # Reachable by its id, marked as uploaded in every representation.
    got = stranger.call("GET", f"/v1/audits/{rid}")
    assert got["source"] == "upload" and got["table"] is None
    html = stranger.raw("GET", f"/v1/audits/{rid}", headers={"Accept": "text/html"})[2].decode()
    assert 'data-role="notice"' in html and "Uploaded record" in html
    page = stranger.raw("GET", f"/reports/{rid}")[2].decode()
    assert "Uploaded record" in page
    text = stranger.raw("GET", f"/v1/audits/{rid}", headers={"Accept": "text/plain"})[2].decode()
    assert text.startswith("NOTICE: Uploaded record")
    # Not listed anywhere: not on the home page, not under the table, not by player name.
    listing = stranger.call("GET", "/v1/audits")["reports"]
    assert rid not in {r["id"] for r in listing}
    assert {r["source"] for r in listing} == {"service"}
    by_table = stranger.call("GET", f"/v1/audits?table={bots.table}")["reports"]
    assert [r["id"] for r in by_table] == [
        stranger.call("GET", f"/v1/tables/{bots.table}/hands/1/report")["id"]
    ]
    assert stranger.call("GET", "/v1/audits?player=real-N")["reports"] == []
    home = stranger.raw("GET", "/")[2].decode()
    assert rid not in home and "forged upload" not in home
    # The service's own report is unchanged and says so.
    own = stranger.call("GET", f"/v1/audits/{by_table[0]['id']}")
    assert own["source"] == "service" and own["table"] == bots.table
    own_html = stranger.raw("GET", f"/reports/{own['id']}")[2].decode()
    assert "Uploaded record" not in own_html


def test_the_same_record_twice_gives_the_same_report(service: Running) -> None:
    c = service.client(admin=False)
    status1, _, first = c.raw("POST", "/v1/audits", EXAMPLE)
    reordered = dict(reversed(list(EXAMPLE.items())))  # the same JSON value, other bytes
    status2, headers, second = c.raw("POST", "/v1/audits", reordered)
    assert (status1, status2) == (201, 200)
    assert json.loads(first) == json.loads(second)
    assert headers["location"] == f"/v1/audits/{json.loads(first)['id']}"
    other = copy.deepcopy(EXAMPLE)
    other["event"] = "another"
    assert c.call("POST", "/v1/audits", other)["id"] != json.loads(first)["id"]


def test_only_the_administrator_lists_an_upload(service: Running) -> None:
    stranger = service.client(admin=False)
    status, _, body = stranger.raw("POST", "/v1/audits?listed=true", EXAMPLE)
    assert status == 401 and json.loads(body)["code"] == "UNAUTHORIZED"
    admin = service.client()
    listed = admin.call("POST", "/v1/audits?listed=true", EXAMPLE, admin.admin())
    assert listed["listed"] is True and listed["source"] == "upload"
    assert listed["id"] in {r["id"] for r in stranger.call("GET", "/v1/audits")["reports"]}
    home = stranger.raw("GET", "/")[2].decode()
    assert listed["id"] in home and "(uploaded)" in home


# ----------------------------------------------------------------------- rate limits


class Clock:
    def __init__(self) -> None:
        self.now = 1_800_000_000.0

    def __call__(self) -> float:
        return self.now


def test_token_bucket_refill() -> None:
    rate = Rate(burst=3, per_hour=3600)
    assert refill(0.0, 0.5, rate) == 0.5
    assert refill(0.0, 100.0, rate) == 3.0
    assert refill(2.0, -5.0, rate) == 2.0  # a clock that stepped back adds nothing


def test_uploads_are_rate_limited_per_client_across_workers(
    make_service: Callable[..., Running], backend: str
) -> None:
    clock = Clock()
    service = make_service(backend, clock=clock, upload_burst=2, upload_per_hour=60)
    # A second app on the same database: another worker or host shares the bucket.
    other = create_app(service.app.extensions["fairplay"].config)
    stranger = service.client(admin=False)

    def upload(n: int) -> tuple[int, dict[str, str], bytes]:
        doc = copy.deepcopy(EXAMPLE)
        doc["event"] = f"upload {n}"
        return stranger.raw("POST", "/v1/audits", doc)

    assert upload(1)[0] == 201
    with other.test_client() as tc:
        doc = copy.deepcopy(EXAMPLE)
        doc["event"] = "upload 2"
        assert tc.post("/v1/audits", json=doc).status_code == 201
    status, headers, body = upload(3)
    assert status == 429
    error = json.loads(body)
    assert error["code"] == "TOO_MANY_REQUESTS" and error["details"]["retry_after"] == 60
    assert headers["retry-after"] == "60"
    before = stranger.call("GET", "/v1/audits?limit=200")
    clock.now += 59
    assert upload(3)[0] == 429
    clock.now += 1  # one token back after a minute
    assert upload(3)[0] == 201
    assert upload(4)[0] == 429
    # The same record again costs nothing; the administrator is not limited.
    assert upload(3)[0] == 200
    doc = copy.deepcopy(EXAMPLE)
    doc["event"] = "by the admin"
    admin = service.client()
    assert admin.raw("POST", "/v1/audits", doc, admin.admin())[0] == 201
    assert stranger.call("GET", "/v1/audits?limit=200") == before  # uploads stay unlisted
    other.extensions["fairplay"].close()


def test_self_registrations_are_rate_limited(make_service: Callable[..., Running]) -> None:
    clock = Clock()
    service = make_service(
        clock=clock, self_registration=True, register_burst=1, register_per_hour=2
    )
    stranger = service.client(admin=False)
    stranger.register(Identity.generate("a"), "a")
    status, headers, body = stranger.raw(
        "POST", "/v1/players", {"name": "b", "public_key": Identity.generate("b").public_key}
    )
    assert status == 429 and headers["retry-after"] == "1800"
    assert json.loads(body)["details"] == {"bucket": "register", "retry_after": 1800}
    clock.now += 1800
    stranger.register(Identity.generate("b"), "b")
    service.client().register(Identity.generate("c"), "c")  # the administrator
    assert len(stranger.call("GET", "/v1/players")["players"]) == 3


def test_hostile_text_in_an_upload_is_escaped_in_its_html_report(service: Running) -> None:
    c = service.client(admin=False)
    hostile = copy.deepcopy(EXAMPLE)
    hostile["event"] = "<script>alert(1)</script>"
    hostile["players"]["N"] = "<img src=x onerror=alert(2)>"
    rid = c.call("POST", "/v1/audits", hostile)["id"]
    for path, headers in ((f"/v1/audits/{rid}", {"Accept": "text/html"}), (f"/reports/{rid}", {})):
        status, _, body = c.raw("GET", path, headers=headers)
        html = body.decode()
        assert status == 200 and "<script" not in html and "<img" not in html
        assert "&lt;script&gt;alert(1)&lt;/script&gt;" in html
        assert "&lt;img src=x onerror=alert(2)&gt;" in html
