"""What rides out a database outage besides the hands (issue 24), on the private cluster of
tests/api/test_db_outage.py and two real ``fairplay serve`` hosts: a table's stream stays
open and goes on, ``fairplay bot`` and ``fairplay witness`` (the real commands) wait the
outage out and finish, the witnesses' cosignatures resume on the log's new checkpoints,
and an event's certificate is built once the database is back. Beside them, on the
shared server's schema (never restarted): an action whose answer was lost, its host
killed right after the log took it, sent again, gets the answer it would have had, and
the same answer every time after.
"""

from __future__ import annotations

import http.client
import json
import os
import queue
import random
import signal
import subprocess
import sys
import threading
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from api.bot import TableBots
from api.client import Client
from api.tournament_bot import TournamentBots
from audit.log.events import event_hash, make_event, sign_event
from audit.tournament.certificate import verify_bundle
from tests.api.conftest import ADMIN, _drop_schema, _pg_schema_url
from tests.api.helpers import Table, open_table
from tests.api.test_db_outage import Cluster, Watched, check_after, verify_log
from tests.api.test_two_hosts import Host, next_action

ROOT = Path(__file__).resolve().parents[2]
pytestmark = pytest.mark.xdist_group("db_outage_clients")  # one private cluster, not one a worker


@pytest.fixture(scope="module")
def cluster() -> Iterator[Cluster]:
    c = Cluster()
    yield c
    c.destroy()


def fairplay(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "audit.cli", *args],
        cwd=ROOT, capture_output=True, text=True, timeout=120,
    )  # fmt: skip


@pytest.fixture
def witness_key(tmp_path: Path) -> tuple[Path, str]:
    """A witness key file made by ``fairplay witness --new-key``, and its verifier key."""
    key = tmp_path / "w.key"
    done = fairplay("witness", "--key", str(key), "--new-key", "outage-witness.test")
    assert done.returncode == 0, done.stderr
    return key, done.stdout.strip()


@pytest.fixture
def hosts(
    cluster: Cluster,
    tmp_path: Path,
    witness_key: tuple[Path, str],
    monkeypatch: pytest.MonkeyPatch,
) -> Iterator[list[Host]]:
    monkeypatch.setenv("FAIRPLAY_DB_BACKOFF_MIN", "0.05")
    monkeypatch.setenv("FAIRPLAY_DB_BACKOFF_MAX", "0.5")
    monkeypatch.setenv("FAIRPLAY_WITNESS_KEYS", witness_key[1])
    monkeypatch.setenv("FAIRPLAY_SELF_REGISTRATION", "1")  # limited per address
    monkeypatch.setenv("FAIRPLAY_REGISTER_BURST", "50")
    data = tmp_path / "data"
    started = [Host(cluster.url, data) for _ in (0, 1)]  # one data folder: one log key
    try:
        yield [h.wait_ready() for h in started]
    finally:
        for h in started:
            h.stop()
        cluster.reset()


class Stream:
    """A table's public stream read line by line in a thread (one HTTP connection)."""

    def __init__(self, url: str) -> None:
        self.resp = urllib.request.urlopen(url, timeout=60)
        self.lines: queue.Queue[str | None] = queue.Queue()
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        try:
            for raw in self.resp:
                self.lines.put(raw.decode("utf-8").rstrip("\n"))
        except (OSError, ValueError, AttributeError):  # closed by the test
            pass
        self.lines.put(None)

    def until(self, wanted: str, seconds: float) -> list[str]:
        """The lines read until one starting with ``wanted`` (fails after ``seconds``)."""
        seen: list[str] = []
        deadline = time.monotonic() + seconds
        while True:
            line = self.lines.get(timeout=max(0.01, deadline - time.monotonic()))
            assert line is not None, f"the stream ended; it said {seen[-5:]}"
            seen.append(line)
            if line.startswith(wanted):
                return seen

    def close(self) -> None:
        self.resp.close()


def test_a_tables_stream_stays_open_through_an_outage(cluster: Cluster, hosts: list[Host]) -> None:
    """The stream says the database is away while it is, keeps its connection, and sends
    the hand's new states once it is back; nothing is sent as an error."""
    client = Watched([hosts[0].url, hosts[1].url])
    bots = TableBots.open(client, random.Random(5), name="stream")
    stream = Stream(f"{hosts[0].url}/v1/tables/{bots.table}/stream")
    try:
        stream.until("event: table", 10)
        cluster.stop()
        try:
            said = stream.until(": database unavailable", 10)
        finally:
            cluster.start()
        assert not any(line.startswith("event: bye") for line in said)
        assert bots.play_hand(1)["phase"] == "over"
        # the same connection follows the hand to its end and the next hand's opening
        # (an event's id comes before its name: the state that holds hand 2 is read to its
        # name; when the hand ended within the outage's backoff, it is the first one sent)
        seen = stream.until("id: 2:", 60)
        seen += stream.until("event:", 10)
        assert seen[-1] == "event: state", seen[-5:]
        assert not any(line.startswith("event: bye") for line in seen)
    finally:
        stream.close()
    check_after(cluster, [client])


def test_the_bot_and_the_witness_commands_ride_out_an_outage(
    cluster: Cluster, hosts: list[Host], witness_key: tuple[Path, str], tmp_path: Path
) -> None:
    """``fairplay bot`` plays two tables on the two hosts and ``fairplay witness`` cosigns
    the log's checkpoints while the database is stopped for 5 s: both print the outage,
    neither stops; the bot's hands all end, and the witness cosigns the checkpoint that
    holds them (its feed resumed on the new checkpoints)."""
    env = dict(os.environ, FAIRPLAY_ADMIN_TOKEN=ADMIN)
    cmd = [sys.executable, "-m", "audit.cli"]
    urls = [a for h in hosts for a in ("--url", h.url)]
    bot = subprocess.Popen(
        [*cmd, "bot", *urls, "--tables", "2", "--hands", "8", "--seed", "24"],
        cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        start_new_session=True,
    )  # fmt: skip
    witness = subprocess.Popen(
        [*cmd, "witness", "--log", hosts[1].url, "--key", str(witness_key[0]), "--interval",
         "0.5"],
        cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        start_new_session=True,
    )  # fmt: skip
    try:
        # Into the hands (the first hand's events logged; the witness has cosigned once),
        # then the outage: judged by what is logged, not by a fixed sleep that a quiet
        # machine's bot outran.
        started = time.monotonic()
        while len(cluster.logged_hashes()) < 60 or time.monotonic() - started < 1.0:
            assert time.monotonic() - started < 60, "the bot logged nothing"
            assert bot.poll() is None, "the bot finished before the outage"
            time.sleep(0.1)
        assert bot.poll() is None, "the bot finished before the outage"
        cluster.stop()
        try:
            time.sleep(5)
        finally:
            cluster.start()
        out, err = bot.communicate(timeout=240)
        assert bot.returncode == 0, err[-2000:]
        assert "Traceback" not in err, err[-2000:]
        verify_log(cluster)
        size = len(cluster.logged_hashes())
        deadline = time.monotonic() + 30
        while True:  # the witness's cosignature on a checkpoint of the whole log
            note = Client(hosts[0].url).call("GET", "/v1/log/checkpoint?witnessed=1")
            assert isinstance(note, str)
            if int(note.splitlines()[1]) >= size:
                break
            assert time.monotonic() < deadline, f"no cosigned checkpoint of size {size}: {note}"
            time.sleep(0.5)
    finally:
        for p in (bot, witness):
            if p.poll() is None:
                os.killpg(p.pid, signal.SIGKILL)
            p.wait(timeout=30)
    said = witness.stderr.read() if witness.stderr else ""
    assert "retrying in" in said, said[-2000:]  # it met the outage and asked again
    assert "Traceback" not in said, said[-2000:]


def test_the_rate_limiter_reconnects(cluster: Cluster, hosts: list[Host]) -> None:
    """Self-registrations take a token from the database's bucket (api/ratelimit.py): after
    the service's sessions are killed and after a restart they go on, on each host; while
    the database is down they are 503 with Retry-After, never a 500 and never a 429."""
    from api.client import Identity

    def register(url: str, n: int) -> tuple[int, bytes]:
        ident = Identity.generate(f"limited-{n}")
        body = {"name": f"limited-{n}", "public_key": ident.public_key}
        status, _, payload = Client(url)._once("POST", "/v1/players", body)
        return status, payload

    def buckets() -> int:
        import psycopg

        with psycopg.connect(cluster.url, autocommit=True) as conn:
            row = conn.execute("SELECT COUNT(*) FROM api_rate_buckets").fetchone()
        return int(row[0]) if row else 0

    n = 0
    for outage in (cluster.terminate, cluster.restart):
        for h in hosts:  # each host's connections in use first
            n += 1
            assert register(h.url, n)[0] == 201
        outage()
        for h in hosts:
            n += 1
            deadline = time.monotonic() + 20
            while (answer := register(h.url, n))[0] == 503:
                assert time.monotonic() < deadline, answer
                time.sleep(0.2)
            assert answer[0] == 201, answer
    assert buckets() >= 1
    cluster.stop()
    try:
        status, payload = register(hosts[0].url, 99)
        assert status == 503 and b"DATABASE_UNAVAILABLE" in payload, (status, payload)
    finally:
        cluster.start()


EVENT = {
    "name": "Outage certificate",
    "format": "pairs-duplicate",
    "tables": 2,
    "boards_per_round": 1,
    "rounds": 2,
}


def test_a_certificate_is_built_once_the_database_is_back(
    cluster: Cluster, hosts: list[Host]
) -> None:
    """The database stops as the event ends (its certificate being built): the bundle's
    route answers 503 naming the database, never 500; once the database is back the
    bundle is built (the failed build's claim released), and it verifies."""
    client = Watched([h.url for h in hosts])
    beacon = {"source": "test-beacon", "round": 3, "randomness": "ef" * 32}
    bots = TournamentBots.open(client, EVENT, 4, random.Random(11), beacon)
    assert bots.run(timeout=120)["phase"] == "over"
    path = f"/v1/tournaments/{bots.tid}/certificate/bundle"
    cluster.stop()
    try:
        status, hdrs, payload = Client(hosts[0].url)._once("GET", path)
        assert status == 503 and b"DATABASE_UNAVAILABLE" in payload, (status, payload)
        assert int(hdrs["retry-after"]) >= 1
    finally:
        cluster.start()
    bundle = client.call_when_ready("GET", path, timeout=120)
    key = str(client.call("GET", "/v1/log/key")).strip()
    assert verify_bundle(bundle, key)["hands"] == 4
    import psycopg

    def claims() -> list[Any]:
        with psycopg.connect(cluster.url, autocommit=True) as conn:
            return conn.execute(
                "SELECT tournament_id FROM api_builds WHERE kind = 'certificate'"
            ).fetchall()

    # the builder stores the bundle, then releases its claim: the bundle can be served in
    # between, so the claim is given a moment to go (a claim left for good still fails)
    deadline = time.monotonic() + 15
    while (left := claims()) and time.monotonic() < deadline:
        time.sleep(0.2)
    assert left == []
    check_after(cluster, [client])


@pytest.fixture
def schema_url(pg_url: str) -> Iterator[str]:
    url, schema = _pg_schema_url(pg_url)
    yield url
    _drop_schema(pg_url, schema)


def signed_next(t: Table) -> tuple[dict[str, Any], dict[str, Any]]:
    """The waiting seat's next action on hand 1 (docs/api.md): the event and its request."""
    h = t.hand()
    seat, kind, body = next_action(t, h)
    event = make_event(
        origin=t.origin, table=t.id, hand=1, seq=h["next_seq"], prev=h["last_hash"],
        actor=t.players[seat].id, type=kind, body=body,
    )  # fmt: skip
    return event, sign_event(event, t.players[seat].signer)


def test_an_action_whose_answer_was_lost_gets_its_first_answer(
    schema_url: str, tmp_path: Path
) -> None:
    """A play is logged and its host dies before answering (``kill -9`` after the log's
    append). The very same signed request sent to the other host is answered as the first
    time would have been (the event's seq and hash, the hand's head after it), and sent
    once more, the same answer; an action answered and sent again after the next one is
    answered with its own seq and hash and the hand's head now (docs/api.md). Nothing is
    logged twice."""
    survivor = Host(schema_url, tmp_path).wait_ready()
    doomed = Host(schema_url, tmp_path, crash_at="play").wait_ready()
    try:
        c = doomed.client()
        t = open_table(c, str(c.call("GET", "/healthz")["log_origin"]), "lost")
        while t.hand()["phase"] != "playing":  # commit, reveal and call on the doomed host
            t.client.call("POST", "/v1/tables/" + t.id + "/hands/1/events", signed_next(t)[1])
        path = f"/v1/tables/{t.id}/hands/1/events"
        event, request = signed_next(t)
        with pytest.raises((OSError, http.client.HTTPException)):
            c.call("POST", path, request)  # logged; the host dies before it answers
        assert doomed.proc.wait(timeout=10) == -signal.SIGKILL
        other = survivor.client()
        first = other.call("POST", path, request)
        assert first["hash"] == event_hash(request) and first["seq"] == event["seq"], first
        assert other.call("POST", path, request) == first
        # an action answered, then sent again after the next one, gets its first answer
        t = Table(other, t.origin, t.id, t.players, t.seeds)
        _, request = signed_next(t)
        answered = other.call("POST", path, request)
        later = other.call("POST", path, signed_next(t)[1])
        again = other.call("POST", path, request)
        # its own seq and hash, as first answered, and the hand's head now (docs/api.md)
        assert (again["seq"], again["hash"]) == (answered["seq"], answered["hash"])
        assert (again["next_seq"], again["last_hash"]) == (later["next_seq"], later["hash"])
        events = other.call("GET", path)["events"]
        hashes = [e["hash"] if "hash" in e else json.dumps(e["event"]) for e in events]
        assert len(hashes) == len(set(hashes)), "an event logged twice"
        assert [e["event"]["type"] for e in events].count("play") == 3
    finally:
        survivor.stop()
        doomed.stop()
