"""Real processes: a writer killed with SIGKILL mid-stream, and concurrent PostgreSQL writers."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from audit.log import merkle
from audit.log.store import open_log
from audit.log.verify import verify_log

from .conftest import ORIGIN, hand_events

WRITER = Path(__file__).with_name("writer_proc.py")
ROOT = Path(__file__).resolve().parents[2]


def _spawn(
    url: str, table: str, batch: int, batches: int, start_at: float | None = None
) -> subprocess.Popen[str]:
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    extra = [] if start_at is None else [str(start_at)]
    return subprocess.Popen(
        [sys.executable, str(WRITER), url, table, str(batch), str(batches), *extra],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
    )


def _kill_after_acks(url: str, batch: int, acks_wanted: int) -> int:
    proc = _spawn(url, "crash", batch, 100_000)
    assert proc.stdout is not None
    last = -1
    acks = 0
    deadline = time.monotonic() + 120
    while acks < acks_wanted:
        line = proc.stdout.readline()
        assert line, f"writer died early: {proc.stderr.read() if proc.stderr else ''}"
        last = int(line.split()[1])
        acks += 1
        assert time.monotonic() < deadline
    os.kill(proc.pid, signal.SIGKILL)  # mid-stream: the next batch is being written
    proc.wait()
    assert proc.returncode == -signal.SIGKILL
    return last


@pytest.mark.parametrize("backend", ["sqlite", "postgresql"])
def test_kill_9_keeps_acknowledged_appends_and_no_half_batch(
    backend: str, tmp_path: Path, request: pytest.FixtureRequest
) -> None:
    url = (
        f"sqlite:///{tmp_path / 'crash.db'}"
        if backend == "sqlite"
        else str(request.getfixturevalue("pg_log_url"))
    )
    batch = 7
    last_acked = _kill_after_acks(url, batch, 25)
    log = open_log(url)
    size = log.size()
    assert size >= last_acked + 1  # every acknowledged append survived
    assert size % batch == 0  # and no batch was half written
    assert verify_log(log) == []  # signatures, chains, tree all hold
    # restart: a new writer continues the same log from where it stands
    proc = _spawn(url, "after", batch, 3)
    out, err = proc.communicate(timeout=120)
    assert proc.returncode == 0, err
    assert log.size() == size + 3 * batch
    assert verify_log(log) == []
    assert log.root() == merkle.root_hash(log.leaves(0, log.size()))
    log.close()


@pytest.mark.postgres
def test_concurrent_postgres_writers_keep_one_dense_tree(pg_log_url: str) -> None:
    writers, batch, batches = 4, 5, 40
    start_at = time.time() + 3.0
    procs = [_spawn(pg_log_url, f"w{i}", batch, batches, start_at) for i in range(writers)]
    for p in procs:
        _, err = p.communicate(timeout=300)
        assert p.returncode == 0, err
    with open_log(pg_log_url) as log:
        total = writers * batch * batches
        assert log.size() == total
        idx = [r[0] for r in log._db.query("SELECT idx FROM log_entries ORDER BY idx")]
        assert idx == list(range(total))  # dense sequence
        assert verify_log(log) == []  # one consistent tree, every chain intact
        leaves = log.leaves(0, total)
        assert log.root() == merkle.root_hash(leaves)
        # batches were interleaved between processes, yet each hand's chain is whole
        tables = [log.entries(i, i + 1)[0]["table"] for i in range(0, total, batch)]
        switches = sum(1 for a, b in zip(tables, tables[1:], strict=False) if a != b)
        assert switches >= writers


def test_concurrent_sqlite_processes_and_threads(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'c.db'}"
    start_at = time.time() + 2.0
    procs = [_spawn(url, f"w{i}", 4, 15, start_at) for i in range(3)]
    for p in procs:
        _, err = p.communicate(timeout=300)
        assert p.returncode == 0, err
    with open_log(url) as log:
        assert log.size() == 180 and verify_log(log) == []


def test_threads_share_one_log(tmp_path: Path) -> None:
    import threading

    from audit.log.keys import generate_signer

    signer = generate_signer(ORIGIN)
    log = open_log(str(tmp_path / "t.db"), ORIGIN, signer, require_registered_keys=False)
    players = [generate_signer(f"p{i}") for i in range(4)]
    errors: list[BaseException] = []

    def work(i: int) -> None:
        try:
            evs = hand_events([players[i]], "t", f"h{i}", 40)
            for k in range(0, 40, 4):
                log.append(evs[k : k + 4])
                log.checkpoint()
        except BaseException as exc:  # noqa: BLE001
            errors.append(exc)

    threads = [threading.Thread(target=work, args=(i,)) for i in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors
    assert log.size() == 160 and verify_log(log) == []
    log.close()


def test_group_commit_gives_each_request_its_own_answer(tmp_path: Path) -> None:
    import threading

    from audit.log.errors import LogChainBroken
    from audit.log.group import GroupCommit
    from audit.log.keys import generate_signer

    log = open_log(
        str(tmp_path / "g.db"), ORIGIN, generate_signer(ORIGIN), require_registered_keys=False
    )
    writer = GroupCommit(log, 10.0)
    players = [generate_signer(f"p{i}") for i in range(8)]
    results: dict[int, list[int]] = {}
    errors: dict[int, BaseException] = {}

    def work(i: int) -> None:
        evs = hand_events([players[i]], "t", f"h{i}", 30)
        got: list[int] = []
        for k, ev in enumerate(evs):
            got += writer.append([ev])
            if i == 0 and k == 5:  # a replayed event: refused alone, others unaffected
                try:
                    writer.append([evs[3]])
                except LogChainBroken as exc:
                    errors[i] = exc
        results[i] = got

    threads = [threading.Thread(target=work, args=(i,)) for i in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    writer.close()
    assert set(errors) == {0}
    assert sorted(i for r in results.values() for i in r) == list(range(240))
    for i, got in results.items():
        assert [log.entries(x, x + 1)[0]["hand"] for x in got] == [f"h{i}"] * 30
    assert verify_log(log) == []
    log.close()
