"""The PostgreSQL sequencer (``log_append_batch``): one statement per batch, the same log.

The writer lock is held only inside the database (never across a round trip to the
appending process); the tree it builds is node for node the one the Python append
builds; batches from several processes and threads at once are sequenced densely with
every chain checked; and a writer killed with SIGKILL while its batch is in the database
loses no acknowledged append and leaves the log consistent.
"""

from __future__ import annotations

import os
import random
import signal
import threading
import time
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from audit.log import merkle
from audit.log.errors import LogChainBroken
from audit.log.group import GroupCommit
from audit.log.keys import Signer, generate_signer
from audit.log.store import APPEND_ENV, Log, open_log
from audit.log.verify import verify_log

from .conftest import ORIGIN, drop_schema, hand_events, pg_schema_url
from .test_durability import _spawn

pytestmark = pytest.mark.postgres

IDLE_HOLDERS = (
    "SELECT count(*) FROM pg_locks l JOIN pg_stat_activity a ON a.pid = l.pid"
    " JOIN pg_class c ON c.oid = l.relation JOIN pg_namespace n ON n.oid = c.relnamespace"
    " WHERE n.nspname = %s AND c.relname = 'log_entries' AND l.granted"
    " AND l.mode = 'ShareRowExclusiveLock' AND a.state LIKE 'idle in transaction%%'"
)
"""Sessions holding the writer lock while they wait for their client's next statement."""


@pytest.fixture
def pg_schemas(pg_url: str) -> Iterator[list[str]]:
    """A factory's list of fresh schemas, all dropped afterwards."""
    made: list[str] = []
    yield made
    for schema in made:
        drop_schema(pg_url, schema)


def _fresh(pg_url: str, made: list[str], signer: Signer | None, **kwargs: Any) -> Log:
    schema = f"seqtest_{uuid.uuid4().hex[:12]}"
    made.append(schema)
    return open_log(
        pg_schema_url(pg_url, schema), ORIGIN, signer, require_registered_keys=False, **kwargs
    )


def _idle_holder_seen(pg_url: str, schema: str, log: Log, batches: list[list[Any]]) -> bool:
    """Append ``batches`` from a thread while another connection watches the lock."""
    import psycopg

    done = threading.Event()
    seen = False

    def append_all() -> None:
        try:
            for batch in batches:
                log.append(batch)
        finally:
            done.set()

    with psycopg.connect(pg_url, autocommit=True) as watcher:
        writer = threading.Thread(target=append_all)
        writer.start()
        while not done.is_set():
            row = watcher.execute(IDLE_HOLDERS, (schema,)).fetchone()
            seen = seen or bool(row and row[0])
        writer.join()
    return seen


def test_the_lock_is_never_held_across_a_round_trip(
    pg_url: str,
    pg_schemas: list[str],
    log_signer: Signer,
    players: dict[str, Signer],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    signers = list(players.values())
    # The Python append, on PostgreSQL, holds the lock between its statements: the
    # watcher sees it (which shows the watcher can see it) ...
    monkeypatch.setenv(APPEND_ENV, "client")
    client = _fresh(pg_url, pg_schemas, log_signer)
    seen = False
    for round_ in range(20):
        evs = hand_events(signers, "t", f"c{round_}", 40)
        seen = _idle_holder_seen(
            pg_url, pg_schemas[-1], client, [evs[k : k + 2] for k in range(0, 40, 2)]
        )
        if seen:
            break
    assert seen
    client.close()
    # ... while the sequencer (the default) takes and releases it within one statement.
    monkeypatch.delenv(APPEND_ENV)
    server = _fresh(pg_url, pg_schemas, log_signer)
    evs = [e for h in range(8) for e in hand_events(signers, "t", f"s{h}", 40)]
    assert not _idle_holder_seen(
        pg_url, pg_schemas[-1], server, [evs[k : k + 2] for k in range(0, len(evs), 2)]
    )
    assert server.size() == len(evs) and verify_log(server) == []
    server.close()


def test_the_sequencer_builds_the_tree_the_python_append_builds(
    pg_url: str,
    pg_schemas: list[str],
    tmp_path: Path,
    log_signer: Signer,
    players: dict[str, Signer],
) -> None:
    signers = list(players.values())
    hands = [hand_events(signers, "t", f"h{h}", 13 + 7 * h) for h in range(6)]
    # interleave the hands, keeping each hand's order, and cut into batches of 1-9
    rng = random.Random(6962)
    events: list[dict[str, Any]] = []
    cursors = [0] * len(hands)
    while any(c < len(h) for c, h in zip(cursors, hands, strict=True)):
        h = rng.choice([i for i, hand in enumerate(hands) if cursors[i] < len(hand)])
        events.append(hands[h][cursors[h]])
        cursors[h] += 1
    cuts = [0]
    while cuts[-1] < len(events):
        cuts.append(min(len(events), cuts[-1] + rng.randint(1, 9)))
    logs = [
        _fresh(pg_url, pg_schemas, log_signer, append_in_server=True),
        _fresh(pg_url, pg_schemas, log_signer, append_in_server=False),
        open_log(str(tmp_path / "py.db"), ORIGIN, log_signer, require_registered_keys=False),
    ]
    for log in logs:
        for a, b in zip(cuts, cuts[1:], strict=False):
            assert log.append(events[a:b]) == list(range(a, b))
    tables = [
        (
            log._db.query("SELECT idx, table_id, hand_id, seq, event_hash, leaf FROM log_entries"),
            log._db.query("SELECT nid, hash FROM log_nodes ORDER BY nid"),
        )
        for log in logs
    ]
    entries, nodes = tables[0]
    assert len(nodes) == 2 * len(events) - bin(len(events)).count("1")  # every complete subtree
    for other_entries, other_nodes in tables[1:]:
        assert sorted(other_entries) == sorted(entries)
        assert [(int(k), bytes(h)) for k, h in other_nodes] == [(int(k), h) for k, h in nodes]
    server = logs[0]
    leaves = [bytes(e[5]) for e in sorted(entries)]
    n = len(events)
    root = server.root()
    assert root == merkle.root_hash(leaves)
    for i in range(n):
        merkle.verify_inclusion(merkle.leaf_hash(leaves[i]), i, n, server.inclusion_proof(i), root)
    for size1 in range(1, n, 7):
        merkle.verify_consistency(
            size1, n, server.root(size1), root, server.consistency_proof(size1)
        )
    assert verify_log(server) == []
    for log in logs:
        log.close()


def test_both_appends_continue_one_tree(
    pg_url: str, pg_schemas: list[str], log_signer: Signer, players: dict[str, Signer]
) -> None:
    """A log written by the Python append (as before migration 2) is continued by the
    sequencer, and the other way round, on the same schema."""
    signers = list(players.values())
    client = _fresh(pg_url, pg_schemas, log_signer, append_in_server=False)
    url = pg_schema_url(pg_url, pg_schemas[-1])
    server = open_log(url, ORIGIN, log_signer, require_registered_keys=False)
    assert server.append_in_server
    evs = hand_events(signers, "t", "h", 61)
    for k, at in enumerate(range(0, 61, 5)):
        assert (client if k % 2 else server).append(evs[at : at + 5]) == list(
            range(at, min(61, at + 5))
        )
    for log in (client, server):
        assert log.root() == merkle.root_hash(log.leaves(0, 61))
        assert verify_log(log) == []
        log.close()


def test_the_sequencer_refuses_a_broken_chain_naming_the_event(
    pg_url: str, pg_schemas: list[str], log_signer: Signer, players: dict[str, Signer]
) -> None:
    signers = list(players.values())
    log = _fresh(pg_url, pg_schemas, log_signer, append_in_server=True)
    evs = hand_events(signers, "t", "h", 6)
    other = hand_events(signers, "t", "g", 3)
    log.append(evs[:3])
    with pytest.raises(LogChainBroken, match=r"events\[1\]: table 't' hand 'h': seq 2 but"):
        log.append([other[0], evs[2]])  # a replay, second in its batch
    forged = hand_events(signers, "t", "h", 1, start=3, prev="00" * 32)
    with pytest.raises(LogChainBroken, match=r"events\[0\]: .*prev does not match"):
        log.append(forged)
    with pytest.raises(LogChainBroken, match=r"events\[2\]: .*seq 5 but the next is 4"):
        log.append([other[0], evs[3], evs[5]])  # a gap within the batch
    assert log.size() == 3  # every refused batch rolled back whole
    assert log.append([other[0], evs[3], other[1], evs[4]]) == [3, 4, 5, 6]
    assert verify_log(log) == []
    log.close()


def test_processes_and_threads_at_once_are_sequenced_densely(
    pg_url: str, pg_schemas: list[str]
) -> None:
    log = _fresh(pg_url, pg_schemas, None)  # writer_proc.py brings the log's key
    assert log.append_in_server
    url = pg_schema_url(pg_url, pg_schemas[-1])
    start_at = time.time() + 3.0
    procs = [_spawn(url, f"w{i}", 4, 30, start_at) for i in range(3)]
    writer = GroupCommit(log, 10.0)
    signers = [generate_signer(f"t{i}") for i in range(6)]
    results: dict[int, list[int]] = {}
    refused: list[BaseException] = []

    def work(i: int) -> None:
        evs = hand_events([signers[i]], "threads", f"h{i}", 40)
        got: list[int] = []
        time.sleep(max(0.0, start_at - time.time()))
        for k, ev in enumerate(evs):
            got += writer.append([ev])
            if k == 10 and i % 2 == 0:  # a replay, in some batch with others' events
                try:
                    writer.append([evs[4]])
                except LogChainBroken as exc:
                    refused.append(exc)
        results[i] = got

    threads = [threading.Thread(target=work, args=(i,)) for i in range(len(signers))]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    writer.close()
    for p in procs:
        _, err = p.communicate(timeout=300)
        assert p.returncode == 0, err
    assert len(refused) == 3
    log.close()
    log = open_log(url)  # now with the log's verifier key, which the writers stored
    total = 3 * 4 * 30 + len(signers) * 40
    assert log.size() == total
    idx = [r[0] for r in log._db.query("SELECT idx FROM log_entries ORDER BY idx")]
    assert idx == list(range(total))
    for i, got in results.items():  # each thread's events, in its order, under its hand
        assert got == sorted(got)
        assert [log.entries(x, x + 1)[0]["hand"] for x in got] == [f"h{i}"] * 40
    assert verify_log(log) == []  # every chain, signature and node
    leaves = log.leaves(0, total)
    root = log.root()
    assert root == merkle.root_hash(leaves)
    for i in range(0, total, 13):
        merkle.verify_inclusion(merkle.leaf_hash(leaves[i]), i, total, log.inclusion_proof(i), root)
    log.close()


def test_kill_9_while_a_batch_is_in_the_database(pg_url: str, pg_schemas: list[str]) -> None:
    import psycopg

    schema = f"seqtest_{uuid.uuid4().hex[:12]}"
    pg_schemas.append(schema)
    url = pg_schema_url(pg_url, schema)
    batch = 7
    proc = _spawn(url, "crash", batch, 100_000)
    assert proc.stdout is not None
    last_acked = -1
    # (watched from another connection: a transaction sees pg_stat_activity as it was
    # when it first looked)
    with (
        psycopg.connect(pg_url, autocommit=True) as holder,
        psycopg.connect(pg_url, autocommit=True) as watcher,
    ):
        for _ in range(10):
            last_acked = int(proc.stdout.readline().split()[1])
        # Hold the writer lock, so that the writer's next batch waits inside the
        # sequencer, then kill the writer while its statement is in the database.
        with holder.transaction():
            holder.execute(f'LOCK TABLE "{schema}".log_entries IN SHARE ROW EXCLUSIVE MODE')
            deadline = time.monotonic() + 60
            while not watcher.execute(
                "SELECT count(*) FROM pg_locks l JOIN pg_stat_activity a ON a.pid = l.pid"
                " WHERE NOT l.granted AND a.query LIKE '%%log_append_batch%%'"
                " AND l.relation = %s::regclass",
                (f'"{schema}".log_entries',),
            ).fetchone()[0]:  # type: ignore[index]
                assert time.monotonic() < deadline, "the writer never waited on the lock"
                time.sleep(0.01)
            os.kill(proc.pid, signal.SIGKILL)
            proc.wait()
        # The orphaned statement runs once the lock is free: committed whole or not at all.
        deadline = time.monotonic() + 60
        while watcher.execute(
            "SELECT count(*) FROM pg_locks WHERE relation = %s::regclass",
            (f'"{schema}".log_entries',),
        ).fetchone()[0]:  # type: ignore[index]
            assert time.monotonic() < deadline
            time.sleep(0.01)
    assert proc.returncode == -signal.SIGKILL
    log = open_log(url)
    size = log.size()
    assert size >= last_acked + 1  # every acknowledged append is there
    assert size % batch == 0  # and no batch was half written
    assert verify_log(log) == []
    after = _spawn(url, "after", batch, 3)  # a new writer goes on from there
    _, err = after.communicate(timeout=120)
    assert after.returncode == 0, err
    assert log.size() == size + 3 * batch and verify_log(log) == []
    assert log.root() == merkle.root_hash(log.leaves(0, log.size()))
    log.close()
