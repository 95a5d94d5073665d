"""End to end: ``fairplay serve`` (gunicorn, several workers) on a free port, on SQLite and
PostgreSQL; bots play a whole rubber at one table while another table plays alongside;
every hand's report is fetched and every hand's proof bundle is checked from outside
with ``fairplay verify`` and only the log's verifier key.
"""

from __future__ import annotations

import json
import os
import random
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from api.bot import TableBots
from api.client import Client
from tests.api.conftest import ADMIN
from tests.api.helpers import free_port

pytestmark = pytest.mark.slow


@pytest.fixture
def database(backend: str, tmp_path: Path) -> str:
    return f"sqlite:///{tmp_path / 'data' / 'fairplay.db'}" if backend == "sqlite" else backend


@pytest.fixture
def served(backend: str, tmp_path: Path) -> Iterator[str]:
    port = free_port()
    cmd = [
        sys.executable,
        "-m",
        "audit.cli",
        "serve",
        "--port",
        str(port),
        "--workers",
        "3",
        "--data-dir",
        str(tmp_path / "data"),
    ]
    if backend != "sqlite":
        cmd += ["--database", backend]
    env = dict(os.environ, FAIRPLAY_ADMIN_TOKEN=ADMIN)
    log = open(tmp_path / "serve.log", "w")  # noqa: SIM115 - closed after the server stops
    proc = subprocess.Popen(cmd, env=env, stdout=subprocess.DEVNULL, stderr=log)
    url = f"http://127.0.0.1:{port}"
    try:
        client = Client(url)
        deadline = time.monotonic() + 30
        while True:
            try:
                client.call("GET", "/healthz")
                break
            except OSError:
                if proc.poll() is not None or time.monotonic() > deadline:
                    raise AssertionError((tmp_path / "serve.log").read_text()) from None
                time.sleep(0.2)
        yield url
    finally:
        proc.terminate()
        proc.wait(timeout=30)
        log.close()


def test_rubber_through_the_real_server(served: str, database: str, tmp_path: Path) -> None:
    url = served
    rubber = TableBots.open(Client(url, admin_token=ADMIN), random.Random(1), name="rubber")
    side = TableBots.open(Client(url, admin_token=ADMIN), random.Random(2), name="side")
    side_hands: list[dict[str, object]] = []
    thread = threading.Thread(target=lambda: side_hands.extend(side.play_hand(n) for n in (1, 2)))
    thread.start()
    hands = rubber.play_rubber(max_hands=60)
    thread.join()
    assert len(side_hands) == 2
    c = rubber.client
    last = c.call("GET", f"/v1/tables/{rubber.table}/hands/{len(hands)}/report")["report"]
    assert last["rubbers"][-1]["winner"] in ("NS", "EW")
    vkey = c.call("GET", "/v1/log/key").strip()
    (tmp_path / "vkey").write_text(vkey)
    todo = [(rubber.table, h["hand"]) for h in hands] + [(side.table, 1), (side.table, 2)]
    for table, number in todo:
        report = c.call("GET", f"/v1/tables/{table}/hands/{number}/report")["report"]
        assert report["verdict"] == "clean", report["findings"]
        bundle = tmp_path / f"{table}-{number}.json"
        bundle.write_text(json.dumps(c.call("GET", f"/v1/tables/{table}/hands/{number}/proof")))
        done = subprocess.run(
            [sys.executable, "-m", "audit.cli", "verify", str(bundle), "--key", vkey],
            capture_output=True,
            text=True,
            timeout=60,
        )
        assert done.returncode == 0, done.stdout + done.stderr
    whole = subprocess.run(
        [sys.executable, "-m", "audit.cli", "log", "verify", "--db", database, "--vkey", vkey],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert whole.returncode == 0, whole.stdout + whole.stderr
    record = c.call("GET", f"/v1/tables/{rubber.table}/record")
    assert len(record["hands"]) == len(hands)
    status, headers, page = c.raw("GET", f"/tables/{rubber.table}/hands/1")
    assert status == 200 and b"deal-diagram" in page
