"""``fairplay bot`` and ``python -m api.demo`` against a running service; serve's errors."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from tests.api.conftest import ADMIN, Running


def run(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, *args],
        capture_output=True,
        text=True,
        timeout=120,
        env=dict(os.environ, **(env or {})),
    )


def test_fairplay_bot_plays_through_the_api(service: Running) -> None:
    done = run(
        "-m",
        "audit.cli",
        "bot",
        "--url",
        service.url,
        "--tables",
        "2",
        "--hands",
        "1",
        "--seed",
        "4",
        env={"FAIRPLAY_ADMIN_TOKEN": ADMIN},
    )
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert len(lines) == 2 and all(": clean report r-" in line for line in lines)
    tables = service.client().call("GET", "/v1/tables")["tables"]
    assert len(tables) == 2 and all(t["current_hand"] == 2 for t in tables)


def test_fairplay_bot_without_the_admin_token_fails_with_one_line(service: Running) -> None:
    done = run("-m", "audit.cli", "bot", "--url", service.url, env={"FAIRPLAY_ADMIN_TOKEN": ""})
    assert done.returncode == 1 and "401" in done.stderr and "Traceback" not in done.stderr


def test_demo_seeds_a_table(service: Running) -> None:
    done = run(
        "-m", "api.demo", "--url", service.url, "--hands", "2", env={"FAIRPLAY_ADMIN_TOKEN": ADMIN}
    )
    assert done.returncode == 0, done.stderr
    (table,) = service.client().call("GET", "/v1/tables")["tables"]
    assert table["name"] == "demo" and table["current_hand"] == 3


def test_serve_refuses_an_unknown_database_url(tmp_path: Path) -> None:
    done = run("-m", "audit.cli", "serve", "--data-dir", str(tmp_path), "--database", "mysql://x/y")
    assert done.returncode == 2
    assert done.stderr.strip().startswith("fairplay serve:") and "Traceback" not in done.stderr
