"""The demo event (api/demo_event.py): bots run a small pairs event to its end through the
real API, one action per table per pass, resume it from their state folder, and
``fairplay serve --demo`` starts it beside the demo table."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

from api.bot import BotState
from api.client import Client
from api.demo_event import NAME, STATE, PacedBots, open_event, play, run_demo_event
from tests.api.conftest import ADMIN, Running
from tests.api.helpers import free_port


def test_the_demo_event_resumes_the_event_in_its_state(service: Running, tmp_path: Path) -> None:
    import random

    client = Client(service.url, admin_token=ADMIN)
    state = BotState(tmp_path / "demo-event")
    bots = open_event(client, random.Random(1), 1, 1, state)  # one table, one board
    assert state.load(STATE) == {"tournament": bots.tid}
    # a demo killed after its first pass (the event started, some actions taken)
    doc = client.call("GET", f"/v1/tournaments/{bots.tid}")
    bots.reveal_all(doc)
    doc = client.call("GET", f"/v1/tournaments/{bots.tid}")
    origin = bots.origin
    assert all(bots.act_once(origin, s) for s in doc["rounds_played"][0]["tables"])
    again = run_demo_event(
        service.url, ADMIN, tables=1, boards=1, state=str(tmp_path / "demo-event")
    )
    assert again == bots.tid  # the same event, played on to its end
    assert len(client.call("GET", "/v1/tournaments")["tournaments"]) == 1
    final = client.call("GET", f"/v1/tournaments/{again}")
    assert final["phase"] == "over" and final["name"] == NAME
    assert isinstance(bots, PacedBots) and play(bots, 0)["phase"] == "over"


def test_serve_demo_starts_the_demo_event(tmp_path: Path) -> None:
    port = free_port()
    proc = subprocess.Popen(
        [sys.executable, "-m", "audit.cli", "serve", "--port", str(port), "--workers", "1"]
        + ["--data-dir", str(tmp_path), "--demo"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        env=dict(os.environ, FAIRPLAY_ADMIN_TOKEN=ADMIN),
        start_new_session=True,
    )
    try:
        client = Client(f"http://127.0.0.1:{port}")
        deadline = time.monotonic() + 60
        events: list[dict[str, str]] = []
        tables: list[dict[str, str]] = []
        while time.monotonic() < deadline:
            try:
                events = client.call("GET", "/v1/tournaments")["tournaments"]
                tables = client.call("GET", "/v1/tables")["tables"]
            except OSError:
                events = []
            if events and events[0]["phase"] == "playing" and tables:
                break
            time.sleep(0.5)
        assert [(e["name"], e["phase"]) for e in events] == [(NAME, "playing")]
        assert "demo" in [t["name"] for t in tables]  # the demo table is still there
        page = client.raw("GET", f"/tournaments/{events[0]['id']}")
        assert page[0] == 200 and b"Demo pairs" in page[2]
        assert (tmp_path / "demo-event" / f"{STATE}.json").exists()
    finally:
        os.killpg(proc.pid, signal.SIGTERM)  # serve and the demos it started
        proc.wait(timeout=30)
