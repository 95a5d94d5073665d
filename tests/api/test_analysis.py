"""GET /v1/tournaments/{id}/analysis and its page, on SQLite and on PostgreSQL: 409 until
the event is over; then the analysis is built in the background, the routes answering 202
with its progress (hands analysed of the hands to analyse) and Retry-After until it is
stored, and 200 with the document after, the very document `fairplay analyse` gives on
the event's certificate bundle. A service started again on the same database serves the
stored document at once, without building it again.

The build is held after its first hand (api/faults.py), so the 202 is seen every time.
"""

from __future__ import annotations

import json
import os
import random
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import fastjsonschema
import pytest

from api import faults
from api.analysis import RETRY_AFTER
from api.routes.analysis import ANALYSIS, BUILDING
from api.tournament_bot import TournamentBots
from audit.analysis.judge import FROM_CARD
from audit.analysis.render import ordinal
from audit.cli import main as audit_main
from tests.api.test_tournament_certificate import BEACON, MITCHELL

from .conftest import Running, backend_of, start_service, stop_service

# one worker plays each backend's event once for every test of the module (make test's xdist)
pytestmark = pytest.mark.xdist_group("analysis")

HANDS = 4
"""MITCHELL's hands: two tables, one board a round, two rounds."""


class Gate:
    """Where a build stops until the test opens it (``faults.hold``)."""

    def __init__(self) -> None:
        self.reached = threading.Event()
        self.opened = threading.Event()

    def __call__(self) -> None:
        self.reached.set()
        assert self.opened.wait(60), "the test never opened the gate"


def answer_when(client: Any, path: str, status: int, timeout: float = 60) -> Any:
    """``client.raw`` asked again until it answers ``status``."""
    deadline = time.monotonic() + timeout
    while True:
        got = client.raw("GET", path)
        if got[0] == status:
            return got
        assert got[0] == 202 and time.monotonic() < deadline, got[:2]
        time.sleep(0.2)


def released(conn: Any, tid: str, timeout: float = 30) -> bool:
    """Whether the analysis build's claim is gone (its builder lets it go just after it
    stores the document), asked again until it is."""
    deadline = time.monotonic() + timeout
    query = "SELECT 1 FROM api_builds WHERE kind = 'analysis' AND tournament_id = ?"
    while conn.one(query, (tid,)) is not None:
        if time.monotonic() > deadline:
            return False
        time.sleep(0.05)
    return True


SEEN_DRAWS = 3
"""The services here also run the seen-hand test (FAIRPLAY_ANALYSIS_SEEN_DRAWS), cheaply."""


def offline_analysis(client: Any, tid: str, folder: Path, seen_draws: int = 0) -> dict[str, Any]:
    """What `fairplay analyse` gives on the event's certificate bundle (with the service's
    ``--seen-draws``)."""
    bundle = client.call_when_ready("GET", f"/v1/tournaments/{tid}/certificate/bundle")
    path = folder / "saved-bundle.json"
    path.write_text(json.dumps(bundle))
    out = folder / "analysis.json"
    # the services of the suite judge from the card tests/conftest.py sets
    # (FAIRPLAY_ANALYSIS_FROM_CARD), as the command is told here
    from_card = os.environ["FAIRPLAY_ANALYSIS_FROM_CARD"]
    audit_main(
        ["analyse", str(path), "--format", "json", "-o", str(out), "-j", "1"]
        + ["--from-card", from_card, "--seen-draws", str(seen_draws)]
    )
    doc: dict[str, Any] = json.loads(out.read_text())
    return doc


@dataclass
class Event:
    service: Running
    database: str
    data: Path
    tid: str
    early: Any
    """The analysis route's and page's answers before the end."""
    held: dict[str, Any]
    """What the service said while the build was held after its first hand."""


@pytest.fixture(scope="module", params=["sqlite", "postgresql"])
def event(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Event]:
    for database in backend_of(request):
        gate = Gate()
        faults.hold("analysis_hand", gate)
        data = tmp_path_factory.mktemp("analysis")
        service = start_service(data, database, analysis_seen_draws=SEEN_DRAWS)
        state = Event(service, database, data, "", None, {})
        try:
            client = service.client()
            bots = TournamentBots.open(client, MITCHELL, 4, random.Random(22), BEACON)
            tid = state.tid = bots.tid
            state.early = [
                client.raw("GET", f"/v1/tournaments/{tid}/analysis"),
                client.raw("GET", f"/tournaments/{tid}/analysis"),
            ]
            assert bots.run(timeout=300)["phase"] == "over"
            # the end started the build (nobody asked); it is held after its first hand
            assert gate.reached.wait(60), "the end of the event did not start the build"
            conn = service.app.extensions["fairplay"].db.connection()
            state.held = {
                "json": [client.raw("GET", f"/v1/tournaments/{tid}/analysis") for _ in "ab"],
                "page": client.raw("GET", f"/tournaments/{tid}/analysis"),
                "claims": conn.all(
                    "SELECT owner FROM api_builds WHERE kind = 'analysis' AND tournament_id = ?",
                    (tid,),
                ),
                "stored": conn.one("SELECT 1 FROM api_analyses WHERE tournament_id = ?", (tid,)),
            }
            gate.opened.set()
            yield state
        finally:
            faults.hold("analysis_hand", None)
            gate.opened.set()
            stop_service(state.service)


def test_the_analysis_waits_for_the_end(event: Event) -> None:
    (status, _headers, body), (page_status, _, page) = event.early
    assert status == 409
    assert json.loads(body)["code"] == "WRONG_PHASE"
    assert page_status == 409 and b"analysis-progress" not in page


def test_the_build_answers_202_with_its_progress(event: Event) -> None:
    """While the build is held after its first hand both routes say so (202,
    Retry-After, 1 of 4 hands, when it started), one build however many ask."""
    tid = event.tid
    for status, headers, body in event.held["json"]:
        assert status == 202 and headers["retry-after"] == str(RETRY_AFTER)
        progress = json.loads(body)
        fastjsonschema.compile(BUILDING)(progress)
        assert progress["tournament"] == tid and progress["status"] == "building"
        assert (progress["done"], progress["total"]) == (1, HANDS)
        assert progress["started_at"].endswith("Z") and progress["retry_after"] == RETRY_AFTER
    status, headers, page = event.held["page"]
    assert status == 202 and headers["retry-after"] == str(RETRY_AFTER)
    assert f"1 of {HANDS} hands".encode() in page
    assert f'max="{HANDS}" value="1"'.encode() in page
    assert len(event.held["claims"]) == 1  # one build, however many asked
    assert event.held["stored"] is None


def test_then_200_with_what_fairplay_analyse_gives_on_the_bundle(
    event: Event, tmp_path: Path
) -> None:
    """Once stored: 200 with the document, the same bytes every time, the build's claim
    let go, and the document is what `fairplay analyse` gives on the event's bundle."""
    tid, client = event.tid, event.service.client()
    path = f"/v1/tournaments/{tid}/analysis"
    conn = event.service.app.extensions["fairplay"].db.connection()
    status, _headers, body = answer_when(client, path, 200)
    doc = json.loads(body)
    fastjsonschema.compile(ANALYSIS)(doc)
    assert doc["format"] == "cayenne-analysis/1" and doc["tournament"] == tid
    assert doc["hands"] == HANDS
    assert client.raw("GET", path)[2] == body  # the same bytes every time
    stored = conn.one("SELECT document, hands FROM api_analyses WHERE tournament_id = ?", (tid,))
    assert stored is not None and stored[1] == HANDS
    assert released(conn, tid)
    # deterministic: the stored document is what anyone computes from the bundle
    offline = offline_analysis(client, tid, tmp_path, SEEN_DRAWS)
    assert json.loads(stored[0]) == offline
    assert {k: v for k, v in doc.items() if k != "tournament"} == offline
    records = client.call("GET", f"/v1/tournaments/{tid}/records")["records"]
    seated = {
        tuple(r["players"][s] for s in pair) for r in records for pair in (("N", "S"), ("E", "W"))
    }
    assert {tuple(p["players"]) for p in doc["pairs"]} == seated
    # the service's seen-hand test, as the command runs it (the documents are equal above)
    assert doc["settings"]["seen_draws"] == SEEN_DRAWS
    assert all(set(p["seen"]) == {"left", "right"} for p in doc["pairs"])
    status, _headers, page = client.raw("GET", f"/tournaments/{tid}/analysis")
    assert status == 200 and b"<h3>Pairs</h3>" in page and b'id="analysis-progress"' not in page
    # the page names the first card judged as built, and the command that gives the same
    # document: with the service's --from-card when it is not the command's default
    from_card = int(os.environ["FAIRPLAY_ANALYSIS_FROM_CARD"])
    assert f"Every card after the {ordinal(from_card)} of every hand".encode() in page
    option = "" if from_card == FROM_CARD else f" --from-card {from_card}"
    option += f" --seen-draws {SEEN_DRAWS}"
    assert f"<code>fairplay analyse{option} certificate-{tid}.json</code>".encode() in page


def test_a_restarted_service_serves_the_stored_analysis_without_a_build(event: Event) -> None:
    """The service stops; another starts on the same database: its first answer is the
    stored document (200, same bytes), and no build of the analysis begins."""
    tid = event.tid
    path = f"/v1/tournaments/{tid}/analysis"
    client = event.service.client()
    before = answer_when(client, path, 200)[2]
    conn = event.service.app.extensions["fairplay"].db.connection()
    made = conn.one("SELECT created_at FROM api_analyses WHERE tournament_id = ?", (tid,))
    stop_service(event.service)
    builds: list[str] = []
    faults.hold("analysis_build", lambda: builds.append("analysis"))
    try:
        event.service = start_service(event.data, event.database, analysis_seen_draws=SEEN_DRAWS)
        client = event.service.client()
        status, _headers, body = client.raw("GET", path)
        assert status == 200 and body == before
        assert client.raw("GET", f"/tournaments/{tid}/analysis")[0] == 200
        conn = event.service.app.extensions["fairplay"].db.connection()
        again = conn.one("SELECT created_at FROM api_analyses WHERE tournament_id = ?", (tid,))
        assert again == made
        assert conn.one("SELECT 1 FROM api_builds WHERE kind = 'analysis'") is None
        assert builds == []
    finally:
        faults.hold("analysis_build", None)
