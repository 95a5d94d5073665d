"""GET /v1/tournaments/{id}/analysis and its page: 409 until the event is over, then
every pair of the event with its p-value and flag; the same pairs as `fairplay analyse`
finds in the event's certificate bundle."""

from __future__ import annotations

import json
import random
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from api.tournament_bot import TournamentBots
from audit.cli import main as audit_main
from tests.api.test_tournament_certificate import BEACON, MITCHELL, _start, _stop

from .conftest import Running

pytestmark = pytest.mark.xdist_group("analysis")


@pytest.fixture(scope="module")
def event(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Running, str, Any]]:
    service = _start(tmp_path_factory.mktemp("analysis"))
    try:
        client = service.client()
        bots = TournamentBots.open(client, MITCHELL, 4, random.Random(22), BEACON)
        early = client.raw("GET", f"/v1/tournaments/{bots.tid}/analysis")
        assert bots.run(timeout=300)["phase"] == "over"
        yield service, bots.tid, early
    finally:
        _stop(service)


def test_the_analysis_waits_for_the_end(event: tuple[Running, str, Any]) -> None:
    _service, _tid, early = event
    status, _headers, body = early
    assert status == 409
    assert json.loads(body)["code"] == "WRONG_PHASE"


def test_every_pair_is_tested_once_the_event_is_over(
    event: tuple[Running, str, Any], tmp_path: Path
) -> None:
    service, tid, _ = event
    client = service.client()
    doc = client.call("GET", f"/v1/tournaments/{tid}/analysis")
    assert doc["format"] == "cayenne-analysis/1" and doc["tournament"] == tid
    records = client.call("GET", f"/v1/tournaments/{tid}/records")["records"]
    seated = {
        tuple(r["players"][s] for s in pair) for r in records for pair in (("N", "S"), ("E", "W"))
    }
    assert {tuple(p["players"]) for p in doc["pairs"]} == seated
    assert all(isinstance(p["flagged"], bool) and 0 <= p["p_value"] <= 1 for p in doc["pairs"])
    bundle = client.call_when_ready("GET", f"/v1/tournaments/{tid}/certificate/bundle")
    path = tmp_path / "bundle.json"
    path.write_text(json.dumps(bundle))
    out = tmp_path / "a.json"
    audit_main(["analyse", str(path), "--format", "json", "-o", str(out), "-j", "1"])
    offline = json.loads(out.read_text())
    assert [(p["players"], p["p_value"]) for p in offline["pairs"]] == [
        (p["players"], p["p_value"]) for p in doc["pairs"]
    ]
    status, _headers, page = client.raw("GET", f"/tournaments/{tid}/analysis")
    assert status == 200 and b"<h2>Pairs</h2>" in page
