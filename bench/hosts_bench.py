"""One host and two hosts on one PostgreSQL schema: signed plays/s and the log's lock.

Every append to the log takes one cluster-wide lock (``LOCK TABLE log_entries IN SHARE ROW
EXCLUSIVE MODE``, held until the commit is on disk), so the log's throughput is bounded by
how long each batch holds it. Each process commits all the events that arrived while its
previous batch ran as one batch (``audit.log.group.GroupCommit``).

Two sequencers are compared side by side, in one run, on the same machine state:

``server``
    the default: one autocommitted ``SELECT log_append_batch(...)`` per batch, which
    takes the lock, checks the chains, inserts the entries and the tree's new nodes and
    commits, all inside PostgreSQL (no client round trip while the lock is held);
``client``
    ``FAIRPLAY_LOG_APPEND=client``: the Python append SQLite uses, run on PostgreSQL
    (``BEGIN``, ``LOCK``, read the size and the heads, insert the entries, insert the
    nodes, ``COMMIT``: the lock is held across four round trips to the host).

For one and two ``fairplay serve`` hosts (gunicorn, ``--workers`` each) on one fresh
schema and the same log key, ``--tables`` bot tables split evenly between the hosts
(each table in its own client process, every call and play signed) play for
``--seconds``; another connection samples ``pg_locks`` every 2 ms. It prints plays/s, the
lock's busy fraction (the share of samples in which some transaction holds it), the
batches (append transactions: distinct ``xmin`` of the entries appended in the window),
the events per batch and the mean time the lock is held per batch (busy fraction x
window / batches, which includes the odd key registration; it depends on the machine
much less than the rates do).

    .venv/bin/python bench/hosts_bench.py [--seconds 10] [--tables 16] [--workers 2]
        [--modes client,server] [--pg URL]
"""

from __future__ import annotations

import argparse
import multiprocessing as mp
import os
import secrets
import sys
import tempfile
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from api_bench import drive, run_server  # noqa: E402

APPEND_ENV = "FAIRPLAY_LOG_APPEND"  # audit.log.store.APPEND_ENV


class LockSampler:
    """Samples, from its own connection, whether the log's writer lock is held."""

    def __init__(self, pg: str, schema: str) -> None:
        import psycopg

        self.conn = psycopg.connect(pg, autocommit=True)
        self.schema = schema
        row = self.conn.execute(
            "SELECT c.oid FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace"
            " WHERE n.nspname = %s AND c.relname = 'log_entries'",
            (schema,),
        ).fetchone()
        assert row is not None, "the log's table is not there"
        self.oid = row[0]
        self.samples = 0
        self.held = 0
        self.size0 = self.size1 = 0
        self.t0 = self.t1 = 0.0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def _size(self) -> int:
        row = self.conn.execute(
            f'SELECT COALESCE(MAX(idx) + 1, 0) FROM "{self.schema}".log_entries'
        ).fetchone()
        return int(row[0]) if row else 0

    def _run(self) -> None:
        query = (
            "SELECT count(*) FROM pg_locks WHERE relation = %s"
            " AND mode = 'ShareRowExclusiveLock' AND granted"
        )
        while not self._stop.is_set():
            row = self.conn.execute(query, (self.oid,)).fetchone()
            self.samples += 1
            self.held += bool(row and row[0])
            time.sleep(0.002)

    def __enter__(self) -> LockSampler:
        self.size0, self.t0 = self._size(), time.monotonic()
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join()
        self.size1, self.t1 = self._size(), time.monotonic()

    def batches(self) -> int:
        """Append transactions in the window: each batch's entries share one ``xmin``."""
        row = self.conn.execute(
            f'SELECT count(DISTINCT xmin::text) FROM "{self.schema}".log_entries'
            " WHERE idx >= %s AND idx < %s",
            (self.size0, self.size1),
        ).fetchone()
        return int(row[0]) if row else 0

    @property
    def busy(self) -> float:
        return self.held / max(1, self.samples)


@dataclass
class Row:
    mode: str
    hosts: int
    rate: float
    busy: float
    batches: int
    events: int
    window: float

    @property
    def hold_ms(self) -> float:
        return self.busy * self.window / max(1, self.batches) * 1000

    @property
    def per_batch(self) -> float:
        return self.events / max(1, self.batches)


def measure(urls: list[str], tables: int, seconds: float, pg: str, schema: str) -> Any:
    ctx = mp.get_context("spawn")
    out: Any = ctx.Queue()
    start_at = time.time() + 2.0 + 0.15 * tables
    procs = [
        ctx.Process(target=drive, args=(urls[i % len(urls)], seconds, i, start_at, out))
        for i in range(tables)
    ]
    for p in procs:
        p.start()
    time.sleep(max(0.0, start_at - time.time()))
    with LockSampler(pg, schema) as sampler:
        results = [out.get() for _ in procs]
    for p in procs:
        p.join()
    plays = sum(r[0] for r in results)
    elapsed = max(r[2] for r in results)
    batches = sampler.batches()
    sampler.conn.close()
    return (
        plays / elapsed,
        sampler.busy,
        batches,
        sampler.size1 - sampler.size0,
        sampler.t1 - sampler.t0,
    )


def run_one(args: argparse.Namespace, mode: str, hosts: int) -> Row:
    import psycopg

    schema = "hosts_bench_" + secrets.token_hex(4)
    db = f"{args.pg}{'&' if '?' in args.pg else '?'}schema={schema}"
    procs = []
    with tempfile.TemporaryDirectory() as tmp:
        try:
            urls = []
            for _ in range(hosts):  # the same data dir: the same log key
                proc, url = run_server(
                    db, args.workers, args.threads, Path(tmp), {APPEND_ENV: mode}
                )
                procs.append(proc)
                urls.append(url)
            rate, busy, batches, events, window = measure(
                urls, args.tables, args.seconds, args.pg, schema
            )
        finally:
            for proc in procs:
                proc.terminate()
                proc.wait(timeout=30)
            with psycopg.connect(args.pg, autocommit=True) as conn:
                conn.execute(f'DROP SCHEMA IF EXISTS "{schema}" CASCADE')
    row = Row(mode, hosts, rate, busy, batches, events, window)
    print(
        f"{mode:6} sequencer, {hosts} host(s): {rate:6.0f} plays/s, log lock busy "
        f"{busy:5.1%}, {row.per_batch:5.1f} events/batch, {row.hold_ms:5.2f} ms held/batch"
        f" (load average {os.getloadavg()[0]:.1f}: rows are comparable when it is alike)",
        flush=True,
    )
    return row


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--seconds", type=float, default=10.0)
    parser.add_argument("--tables", type=int, default=16)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--threads", type=int, default=16)
    parser.add_argument("--modes", default="client,server")
    parser.add_argument(
        "--pg",
        default=os.environ.get(
            "FAIRPLAY_TEST_POSTGRES_URL", "postgresql://postgres@127.0.0.1:5432/test"
        ),
    )
    args = parser.parse_args()
    try:
        import psycopg

        psycopg.connect(args.pg, connect_timeout=3).close()
    except Exception as exc:  # noqa: BLE001 - report and skip
        print(f"postgresql: skipped ({exc})")
        return 0
    modes = args.modes.split(",")
    rows = [run_one(args, mode, hosts) for hosts in (1, 2) for mode in modes]
    print()
    print(
        f"signed plays/s and the log's writer lock, {args.tables} tables, PostgreSQL, "
        f"{args.workers} workers x {args.threads} threads per host, {os.cpu_count()} cores, "
        f"{args.seconds:.0f} s per row, load average {os.getloadavg()[0]:.1f}"
    )
    print(
        f"{'sequencer':>9} {'hosts':>5} {'plays/s':>8} {'lock busy':>10} {'events/batch':>13}"
        f" {'ms held/batch':>14} {'busy per 100 plays/s':>21}"
    )
    for r in rows:
        print(
            f"{r.mode:>9} {r.hosts:5} {r.rate:8.0f} {r.busy:10.1%} {r.per_batch:13.1f}"
            f" {r.hold_ms:14.2f} {r.busy / max(r.rate, 1e-9) * 100:21.1%}"
        )
    if len(modes) == 2:
        print(f"ratios {modes[1]} / {modes[0]}, same host count, measured back to back:")
        for hosts in (1, 2):
            a, b = (next(r for r in rows if r.mode == m and r.hosts == hosts) for m in modes)
            print(
                f"  {hosts} host(s): plays/s x{b.rate / max(a.rate, 1e-9):.2f}, lock busy "
                f"x{b.busy / max(a.busy, 1e-9):.2f}, ms held per batch "
                f"x{b.hold_ms / max(a.hold_ms, 1e-9):.2f}"
            )
    return 0


if __name__ == "__main__":
    sys.exit(main())
