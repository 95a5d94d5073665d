"""``fairplay bot`` and ``python -m api.demo`` against a running service; serve's errors."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from api.client import Client
from tests.api.conftest import ADMIN, Running
from tests.api.helpers import free_port


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


def test_demo_plays_at_its_pace_and_resumes_its_table(service: Running, tmp_path: Path) -> None:
    state = str(tmp_path / "demo-bots")
    args = ("-m", "api.demo", "--url", service.url, "--hands", "1", "--state", state)
    start = time.monotonic()
    first = run(*args, "--pace", "0.05", env={"FAIRPLAY_ADMIN_TOKEN": ADMIN})
    assert first.returncode == 0, first.stderr
    assert time.monotonic() - start >= 0.05 * 60  # 8 ceremony events, a call, 52 cards
    again = run(*args, env={"FAIRPLAY_ADMIN_TOKEN": ADMIN})  # a restarted demo
    assert again.returncode == 0, again.stderr
    (table,) = service.client().call("GET", "/v1/tables")["tables"]
    assert table["current_hand"] == 3  # one table, two hands: the second run resumed it


def test_serve_refuses_an_unknown_database_url(tmp_path: Path) -> None:
    done = run("-m", "audit.cli", "serve", "--data-dir", str(tmp_path), "--database", "mysql://x/y")
    assert done.returncode == 2
    assert done.stderr.strip().startswith("fairplay serve:") and "Traceback" not in done.stderr


def test_fairplay_bot_fails_over_to_the_next_url(service: Running) -> None:
    dead = f"http://127.0.0.1:{free_port()}"  # nothing listens there
    done = run(
        "-m", "audit.cli", "bot", "--url", dead, "--url", service.url, "--hands", "1",
        env={"FAIRPLAY_ADMIN_TOKEN": ADMIN},
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert ": clean report r-" in done.stdout
    client = Client([dead, service.url], pause=0.01)
    assert client.call("GET", "/healthz")["status"] == "ok"
    assert (client.host, client.port) == ("127.0.0.1", service.server.server_port)
    client.close()
    with pytest.raises(OSError):
        Client([dead], rounds=1, pause=0.01).call("GET", "/healthz")


def test_a_bot_killed_mid_hand_resumes_it_from_its_state(service: Running, tmp_path: Path) -> None:
    state = tmp_path / "bot-state"
    cmd = [sys.executable, "-m", "audit.cli", "bot", "--url", service.url, "--state", str(state)]
    cmd += ["--hands", "2", "--seed", "7", "--pace", "0.05"]
    env = dict(os.environ, FAIRPLAY_ADMIN_TOKEN=ADMIN)
    bot = subprocess.Popen(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    c = service.client()
    try:
        deadline = time.monotonic() + 60
        phase = ""
        while phase != "revealing":  # two seeds committed and not yet revealed at least
            assert time.monotonic() < deadline and bot.poll() is None, "the bot did not get there"
            try:
                table = json.loads((state / "bot0.json").read_text())["table"]
                phase = c.hand(table, 1)["phase"] if table else ""
            except (OSError, ValueError):
                pass
            time.sleep(0.01)
        bot.send_signal(signal.SIGKILL)
        bot.wait(timeout=30)
    finally:
        if bot.poll() is None:
            bot.kill()
        assert bot.stdout is not None and bot.stderr is not None
        bot.stdout.close()
        bot.stderr.close()
    assert c.hand(table, 1)["phase"] == "revealing"  # killed mid-hand
    assert oct((state / "bot0.json").stat().st_mode & 0o777) == "0o600"
    cmd[cmd.index("--pace") + 1] = "0"
    done = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert [line.split(":")[0] for line in lines] == [
        f"table {table} hand 1",
        f"table {table} hand 2",
    ]
    assert all(": clean report r-" in line for line in lines)
    tables = c.call("GET", "/v1/tables")["tables"]
    assert [t["id"] for t in tables] == [table]  # the same table, resumed
