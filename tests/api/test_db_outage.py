"""The service outlives its database: a private PostgreSQL cluster restarted, its
sessions killed and stopped for a while, under two real ``fairplay serve`` hosts and bots
playing (issue 24).

The cluster is this module's own (``initdb`` in a temporary folder, on a free port, run
as the ``postgres`` user when the tests run as root): the shared server other tests use
is never touched. The hosts run with a short reconnect backoff
(``FAIRPLAY_DB_BACKOFF_MAX``), so that they find the database again within a second of
its return. After each outage: every action a client was told was accepted is in the
log, ``fairplay log verify`` passes, the tables play on to the end on the same hosts
(never restarted), and no answer during the outage was a 500 or blamed the client
(422): the service said 503 with ``Retry-After``, which the clients waited out.
"""

from __future__ import annotations

import contextlib
import os
import pwd
import random
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from api.bot import TableBots
from api.client import Client, Identity
from api.tournament_bot import TournamentBots
from tests.api.conftest import ADMIN
from tests.api.helpers import free_port
from tests.api.test_two_hosts import Host

# one worker makes the private PostgreSQL cluster once for every test of the module (make test's xdist)
pytestmark = pytest.mark.xdist_group("db_outage")

ROOT = Path(__file__).resolve().parents[2]
PG_BIN = Path(os.environ.get("FAIRPLAY_TEST_PG_BIN", "/usr/lib/postgresql/15/bin"))


class Cluster:
    """A private PostgreSQL cluster that this test may restart, stop and cut off."""

    def __init__(self) -> None:
        if not (PG_BIN / "initdb").exists():
            pytest.skip(f"no PostgreSQL server binaries in {PG_BIN}")
        self.as_user: list[str] = []
        self.dir = Path(tempfile.mkdtemp(prefix="fairplay-pg-"))
        if os.geteuid() == 0:  # postgres refuses to run as root
            try:
                owner = pwd.getpwnam("postgres")
            except KeyError:
                pytest.skip("running as root and there is no postgres user to run a cluster")
            os.chown(self.dir, owner.pw_uid, owner.pw_gid)
            self.as_user = ["runuser", "-u", "postgres", "--"]
        self.port = free_port()
        self.data = self.dir / "data"
        self._run("initdb", "-D", str(self.data), "-A", "trust", "-U", "postgres")
        self.url = f"postgresql://postgres@127.0.0.1:{self.port}/postgres"
        self.start()

    def _run(self, tool: str, *args: str) -> None:
        subprocess.run(
            [*self.as_user, str(PG_BIN / tool), *args],
            check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, timeout=120,
        )  # fmt: skip

    def _ctl(self, *args: str) -> None:
        options = f"-p {self.port} -k {self.dir} -c listen_addresses=127.0.0.1 -c fsync=off"
        self._run("pg_ctl", "-D", str(self.data), "-o", options, "-w", "-t", "60", *args)

    def start(self) -> None:
        self._ctl("-l", str(self.dir / "log"), "start")

    def stop(self) -> None:
        self._ctl("-m", "fast", "stop")

    def restart(self) -> None:
        self._ctl("-m", "fast", "-l", str(self.dir / "log"), "restart")

    def terminate(self) -> int:
        """``pg_terminate_backend`` every other session (the service's): how many."""
        import psycopg

        with psycopg.connect(self.url, autocommit=True) as conn:
            rows = conn.execute(
                "SELECT pg_terminate_backend(pid) FROM pg_stat_activity"
                " WHERE pid <> pg_backend_pid() AND backend_type = 'client backend'"
            ).fetchall()
        return len(rows)

    def logged_hashes(self) -> set[str]:
        import psycopg

        with psycopg.connect(self.url, autocommit=True) as conn:
            return {r[0] for r in conn.execute("SELECT event_hash FROM log_entries")}

    def reset(self) -> None:
        """Drop everything the hosts made: the next test's hosts start on an empty database."""
        import psycopg

        with psycopg.connect(self.url, autocommit=True) as conn:
            conn.execute("DROP SCHEMA public CASCADE")
            conn.execute("CREATE SCHEMA public")

    def destroy(self) -> None:
        with contextlib.suppress(subprocess.CalledProcessError):  # already stopped
            self._ctl("-m", "immediate", "stop")
        shutil.rmtree(self.dir, ignore_errors=True)


class Watched(Client):
    """A client that keeps every status it was answered and every accepted action, and
    runs ``before(kind, plays)`` before it sends an action (the outage's trigger)."""

    def __init__(self, urls: list[str], before: Callable[[str, int], None] | None = None) -> None:
        super().__init__(urls, admin_token=ADMIN, outage=90, pause=0.1)
        self.answers: list[tuple[int, str, str]] = []
        self.accepted: list[str] = []
        self.before = before
        self._plays: dict[tuple[str, int], int] = {}

    def _once(
        self, method: str, path: str, body: Any = None, headers: dict[str, str] | None = None
    ) -> tuple[int, dict[str, str], bytes]:
        status, hdrs, payload = super()._once(method, path, body, headers)
        self.answers.append((status, path, payload[:200].decode("utf-8", "replace")))
        if status == 503:
            assert int(hdrs["retry-after"]) >= 1
        return status, hdrs, payload

    def act(
        self,
        identity: Identity,
        origin: str,
        table: str,
        number: int,
        seq: int,
        prev: str,
        kind: str,
        body: dict[str, Any],
    ) -> dict[str, Any]:
        plays = self._plays.get((table, number), 0) + (kind == "play")
        if self.before is not None:
            self.before(kind, plays)
        result = super().act(identity, origin, table, number, seq, prev, kind, body)
        self._plays[(table, number)] = plays
        self.accepted.append(str(result["hash"]))
        return result

    def refused_wrongly(self) -> list[tuple[int, str, str]]:
        """Answers that were a 5xx other than 503, or a 422 that blamed the client for the
        database (``LOG_STORE_ERROR``)."""
        return [
            a for a in self.answers if (a[0] >= 500 and a[0] != 503) or "LOG_STORE_ERROR" in a[2]
        ]


@pytest.fixture(scope="module")
def cluster() -> Iterator[Cluster]:
    c = Cluster()
    yield c
    c.destroy()


@pytest.fixture
def hosts(
    cluster: Cluster, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> Iterator[list[Host]]:
    monkeypatch.setenv("FAIRPLAY_DB_BACKOFF_MIN", "0.05")
    monkeypatch.setenv("FAIRPLAY_DB_BACKOFF_MAX", "0.5")
    started = [Host(cluster.url, tmp_path) for _ in (0, 1)]  # one data folder: one log key
    try:
        yield [h.wait_ready() for h in started]
    finally:
        for h in started:
            h.stop()
        cluster.reset()


def verify_log(cluster: Cluster) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "audit.cli", "log", "verify", "--db", cluster.url],
        cwd=ROOT, capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr


def check_after(cluster: Cluster, clients: list[Watched]) -> None:
    logged = cluster.logged_hashes()
    for c in clients:
        assert not c.refused_wrongly(), c.refused_wrongly()[:3]
        missing = [h for h in c.accepted if h not in logged]
        assert not missing, f"{len(missing)} accepted actions are not in the log"
    verify_log(cluster)


PHASES = ("commit", "reveal", "call", "play", "last")


def test_restart_at_each_phase_of_a_hand(cluster: Cluster, hosts: list[Host]) -> None:
    """The database restarted just before a commitment, a seed reveal, the first call,
    the first play and the hand's last card are sent; then the connections killed; the
    hand goes on each time on the same hosts."""
    todo = list(PHASES)
    outages: list[str] = []

    def before(kind: str, plays: int) -> None:
        if not todo:
            return
        want = todo[0]
        if (want == "last" and kind == "play" and plays == 52) or (
            want == kind and (kind != "play" or plays == 1)
        ):
            todo.pop(0)
            outages.append(want)
            cluster.restart() if len(outages) % 2 else cluster.terminate()

    client = Watched([h.url for h in hosts], before)
    bots = TableBots.open(client, random.Random(24), name="outage")
    final = bots.play_hand(1)
    assert final["phase"] == "over"
    assert outages == list(PHASES), outages
    # One more outage between hands: the next hand opens and is played on both hosts.
    cluster.restart()
    assert bots.play_hand(2)["phase"] == "over"
    check_after(cluster, [client])
    health = [Client(h.url).call("GET", "/healthz")["status"] for h in hosts]
    assert health == ["ok", "ok"]


def test_down_thirty_seconds_during_play(cluster: Cluster, hosts: list[Host]) -> None:
    """Bots play two tables on the two hosts; the database is stopped for 30 s and
    started again: meanwhile /healthz says 503 naming the database and requests get 503
    with Retry-After; the tables finish without a host restart."""
    clients = [Watched([hosts[i].url, hosts[1 - i].url]) for i in (0, 1)]
    tables = [TableBots.open(c, random.Random(i), name=f"down{i}") for i, c in enumerate(clients)]
    failures: list[BaseException] = []

    def play(bots: TableBots) -> None:
        try:
            for number in (1, 2, 3):
                assert bots.play_hand(number)["phase"] == "over"
        except BaseException as exc:  # noqa: BLE001 - reported by the test
            failures.append(exc)

    threads = [threading.Thread(target=play, args=(t,)) for t in tables]
    for t in threads:
        t.start()
    deadline = time.monotonic() + 60
    while min(len(c.accepted) for c in clients) < 20:  # into the first hand, at both tables
        assert time.monotonic() < deadline and not failures, failures
        time.sleep(0.02)
    cluster.stop()
    assert all(t.is_alive() for t in threads), "a table finished before the outage"
    try:
        time.sleep(2)
        probe = Client(hosts[0].url)
        status, hdrs, payload = probe._once("GET", "/healthz")
        assert status == 503, payload
        assert b"DATABASE_UNAVAILABLE" in payload and b"postgresql" in payload
        assert int(hdrs["retry-after"]) >= 1
        status, hdrs, payload = probe._once("GET", "/v1/log/checkpoint")
        assert status == 503 and b"DATABASE_UNAVAILABLE" in payload, payload
        time.sleep(28)
    finally:
        cluster.start()
    for t in threads:
        t.join(timeout=240)
    assert not failures, failures
    assert all(not t.is_alive() for t in threads)
    assert any(a[0] == 503 for c in clients for a in c.answers), "the outage was not seen"
    check_after(cluster, clients)
    # The log's checkpoints resume: a new one covers the hands played after the outage.
    size = len(cluster.logged_hashes())
    deadline = time.monotonic() + 30
    while True:
        note = Client(hosts[1].url).call("GET", "/v1/log/checkpoint")
        assert isinstance(note, str) and note.startswith("cayenne-fairplay")
        if int(note.splitlines()[1]) == size:
            break
        assert time.monotonic() < deadline, f"no checkpoint of the whole log ({size}): {note}"
        time.sleep(0.5)


TOURNAMENT = {
    "name": "Outage pairs",
    "format": "pairs-duplicate",
    "tables": 2,
    "boards_per_round": 1,
    "rounds": 2,
}


def test_restart_at_a_tournament_rounds_end(cluster: Cluster, hosts: list[Host]) -> None:
    """A pairs event on the two hosts: the database restarted (or its sessions killed)
    just before every board's last card, so at each round's end; the event ends."""
    outages: list[int] = []

    def before(kind: str, plays: int) -> None:
        if kind == "play" and plays == 52:
            outages.append(plays)
            cluster.restart() if len(outages) % 2 else cluster.terminate()

    client = Watched([h.url for h in hosts], before)
    beacon = {"source": "test-beacon", "round": 3, "randomness": "cd" * 32}
    bots = TournamentBots.open(client, TOURNAMENT, 4, random.Random(3), beacon)
    final = bots.run(timeout=180)
    assert final["phase"] == "over", final["phase"]
    assert len(outages) == 4  # two tables, one board a round, two rounds
    assert all(r["over"] and not r["early"] for r in final["rounds_played"])
    check_after(cluster, [client])
