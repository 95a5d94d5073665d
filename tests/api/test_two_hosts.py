"""Two real ``fairplay serve`` hosts on one PostgreSQL schema; one dies mid-action.

Each crashing host runs with ``FAIRPLAY_TEST_EXIT_AFTER_APPEND`` (``api/faults.py``): it
dies, like ``kill -9`` of its process group, right after the log took one action and
before the hand's rows were written, at one phase of a hand each (a commitment, a seed
reveal, the call, a play, the last card). The client then carries on against the
surviving host, which was never restarted: it reads the hand (the row the dead host did
not write), signs the next action again (a new event: its time differs), which the
survivor refuses as stale once, after bringing the hand up to the log, and plays the
hand to its end. The finished hand must be the log's: its report is the one the ``end`` event
names, and the next hand is open.
"""

from __future__ import annotations

import os
import secrets
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from api.ceremony import seat_commitment
from api.client import ApiCallError, Client
from audit.log.events import make_event, sign_event
from audit.rules.cards import Seat
from tests.api.conftest import ADMIN, _drop_schema, _pg_schema_url
from tests.api.helpers import Table, free_port, open_table

ROOT = Path(__file__).resolve().parents[2]
PHASES = ("commit", "reveal", "call", "play", "last")


class Host:
    """One ``fairplay serve`` process group (gunicorn's master and its worker)."""

    def __init__(self, database: str, data_dir: Path, crash_at: str | None = None) -> None:
        self.url = f"http://127.0.0.1:{free_port()}"
        env = dict(os.environ, FAIRPLAY_ADMIN_TOKEN=ADMIN)
        env.pop("FAIRPLAY_TEST_EXIT_AFTER_APPEND", None)
        if crash_at:
            env["FAIRPLAY_TEST_EXIT_AFTER_APPEND"] = crash_at
        port = self.url.rsplit(":", 1)[1]
        data_dir.mkdir(parents=True, exist_ok=True)
        self.log = data_dir / f"host-{port}.log"  # what it said, should it not start
        with self.log.open("wb") as said:
            self.proc = subprocess.Popen(
                [sys.executable, "-m", "audit.cli", "serve", "--port", port, "--workers", "1",
                 "--threads", "4", "--database", database, "--data-dir", str(data_dir)],
                env=env, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=said,
                start_new_session=True,
            )  # fmt: skip

    def wait_ready(self) -> Host:
        deadline = time.monotonic() + 30
        while True:
            try:
                Client(self.url).call("GET", "/healthz")
                return self
            except OSError:
                assert self.proc.poll() is None, (
                    "the host did not start: " + self.log.read_text(errors="replace")[-1500:]
                )
                assert time.monotonic() < deadline, "the host did not answer in 30 s"
                time.sleep(0.1)

    def client(self) -> Client:
        return Client(self.url, admin_token=ADMIN)

    def stop(self) -> None:
        if self.proc.poll() is None:
            os.killpg(self.proc.pid, signal.SIGKILL)
        self.proc.wait(timeout=30)


def next_action(t: Table, h: dict[str, Any]) -> tuple[str, str, dict[str, Any]]:
    """The waiting seat's action, always the same for the same head (so a resent action
    is the very event the dead host logged)."""
    seat = h["waiting_for"][0]
    if h["phase"] == "committing":
        seed = t.seeds.setdefault(seat, secrets.token_bytes(32))
        c = seat_commitment(seed, Seat.parse(seat), t.players[seat].id, t.id, 1)
        return seat, "commit", {"commitment": c}
    if h["phase"] == "revealing":
        return seat, "reveal", {"seed": t.seeds[seat].hex()}
    mine = t.cards(seat)
    if h["phase"] == "calling":
        return seat, "call", {"call": mine["legal_calls"][0]}
    return seat, "play", {"card": mine["legal_plays"][0]}


def act(t: Table, h: dict[str, Any], seat: str, kind: str, body: dict[str, Any]) -> None:
    """Sign (with the time, so never twice the same event) and send one action."""
    stamp = datetime.now(UTC).isoformat(timespec="microseconds").replace("+00:00", "Z")
    event = make_event(
        origin=t.origin,
        table=t.id,
        hand=1,
        seq=h["next_seq"],
        prev=h["last_hash"],
        actor=t.players[seat].id,
        type=kind,
        body=body,
        time=stamp,
    )
    path = f"/v1/tables/{t.id}/hands/1/events"
    t.client.call("POST", path, sign_event(event, t.players[seat].signer))


def play_until(t: Table, stop: str | None) -> None:
    """Play hand 1 through ``t.client`` to its end, or until the host dies at ``stop``.

    An action the host refuses as stale is read again and sent again, at most twice in a
    row: a host that keeps refusing the hand's next action has wedged the table."""
    refused = 0
    while (h := t.hand())["phase"] != "over":
        seat, kind, body = next_action(t, h)
        try:
            act(t, h, seat, kind, body)
            refused = 0
        except ApiCallError as exc:
            assert exc.error_code == "REPLAYED_EVENT", exc  # signed on a stale head
            refused += 1
            assert refused <= 2, f"the table is wedged at seq {h['next_seq']}: {exc}"
        except OSError:
            assert stop is not None, "the surviving host failed"
            last = kind == "play" and sum(h["play"]["cards_left"].values()) == 1
            assert stop == ("last" if last else kind), (stop, kind)
            return
    assert stop is None, f"the host did not die at {stop}"


@pytest.fixture
def schema_url(pg_url: str) -> Iterator[str]:
    url, schema = _pg_schema_url(pg_url)
    yield url
    _drop_schema(pg_url, schema)


def test_a_host_killed_after_the_append_at_each_phase_wedges_nothing(
    schema_url: str, tmp_path: Path
) -> None:
    survivor = Host(schema_url, tmp_path).wait_ready()
    hosts = [survivor]
    try:
        doomed = {phase: Host(schema_url, tmp_path, crash_at=phase) for phase in PHASES}
        hosts += list(doomed.values())
        tables: dict[str, Table] = {}
        for phase, host in doomed.items():
            host.wait_ready()
            c = host.client()
            t = tables[phase] = open_table(c, str(c.call("GET", "/healthz")["log_origin"]), phase)
            # the first actions on the survivor, so both hosts have cached this hand
            seat, kind, body = next_action(t, t.hand())
            Table(survivor.client(), t.origin, t.id, t.players, t.seeds).act(seat, kind, body)
            if phase == "play":  # the call, then the first play, on the doomed host
                while t.hand()["phase"] != "playing":
                    t.act(*next_action(t, t.hand()))
            play_until(t, phase)
            assert host.proc.wait(timeout=10) == -signal.SIGKILL  # the whole host died
        for phase, t in tables.items():
            on_survivor = Table(survivor.client(), t.origin, t.id, t.players, t.seeds)
            play_until(on_survivor, None)
            c = survivor.client()
            h1 = c.hand(t.id, 1)
            events = c.call("GET", f"/v1/tables/{t.id}/hands/1/events")["events"]
            kinds = [e["event"]["type"] for e in events]
            assert kinds[-2:] == ["server_reveal", "end"], phase
            counts = [kinds.count(k) for k in ("open", "commit", "reveal", "play", "end")]
            assert counts == [1, 4, 4, 52, 1], (phase, kinds)  # nothing lost, nothing twice
            assert h1["report_id"] == events[-1]["event"]["body"]["report"], phase
            report = c.call("GET", f"/v1/tables/{t.id}/hands/1/report")["report"]
            assert report["verdict"] == "clean", (phase, report["findings"])
            assert c.hand(t.id, 2)["phase"] == "committing", phase
        assert survivor.proc.poll() is None  # never restarted
    finally:
        for host in hosts:
            host.stop()
