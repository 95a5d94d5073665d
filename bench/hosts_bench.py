"""One host and two hosts on one PostgreSQL schema: signed plays/s and the log lock.

Every append to the log takes one cluster-wide lock (``LOCK TABLE log_entries IN SHARE ROW
EXCLUSIVE MODE``, held until the commit is on disk), so the log's throughput is bounded by
how long each transaction holds it. Each process commits all the events that arrived
while its previous transaction ran in one transaction (``audit.log.group.GroupCommit``).

This starts one, then two ``fairplay serve`` hosts (gunicorn, ``--workers`` each) on one
fresh PostgreSQL schema and the same log key, drives ``--tables`` bot tables split
evenly between the hosts (each table in its own client process, every call and play
signed), and samples ``pg_locks`` every few milliseconds from another connection: the
lock's busy fraction is the share of samples in which some transaction holds it.

    .venv/bin/python bench/hosts_bench.py [--seconds 10] [--tables 16] [--workers 2]
        [--pg URL]
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
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from api_bench import drive, run_server  # noqa: E402


class LockSampler:
    """Samples, from its own connection, whether the log's writer lock is held."""

    def __init__(self, pg: str, schema: str) -> None:
        import psycopg

        self.conn = psycopg.connect(pg, autocommit=True)
        row = self.conn.execute(
            "SELECT c.oid FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace"
            " WHERE n.nspname = %s AND c.relname = 'log_entries'",
            (schema,),
        ).fetchone()
        assert row is not None, "the log's table is not there"
        self.oid = row[0]
        self.samples = 0
        self.held = 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

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
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join()
        self.conn.close()

    @property
    def busy(self) -> float:
        return self.held / max(1, self.samples)


def measure(urls: list[str], tables: int, seconds: float, sampler_args: tuple[str, str]) -> Any:
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
    with LockSampler(*sampler_args) as sampler:
        results = [out.get() for _ in procs]
    for p in procs:
        p.join()
    plays = sum(r[0] for r in results)
    elapsed = max(r[2] for r in results)
    return plays / elapsed, sampler.busy


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--seconds", type=float, default=10.0)
    parser.add_argument("--tables", type=int, default=16)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--threads", type=int, default=16)
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
    rows = []
    for hosts in (1, 2):
        schema = "hosts_bench_" + secrets.token_hex(4)
        db = f"{args.pg}{'&' if '?' in args.pg else '?'}schema={schema}"
        procs = []
        with tempfile.TemporaryDirectory() as tmp:
            try:
                urls = []
                for _ in range(hosts):  # the same data dir: the same log key
                    proc, url = run_server(db, args.workers, args.threads, Path(tmp))
                    procs.append(proc)
                    urls.append(url)
                rate, busy = measure(urls, args.tables, args.seconds, (args.pg, schema))
                rows.append((hosts, rate, busy))
                print(
                    f"{hosts} host(s): {rate:6.0f} plays/s, log lock busy {busy:5.1%}", flush=True
                )
            finally:
                for proc in procs:
                    proc.terminate()
                    proc.wait(timeout=30)
                with psycopg.connect(args.pg, autocommit=True) as conn:
                    conn.execute(f'DROP SCHEMA IF EXISTS "{schema}" CASCADE')
    print()
    print(
        f"signed plays/s and the log's writer lock, {args.tables} tables, PostgreSQL, "
        f"{args.workers} workers x {args.threads} threads per host, {os.cpu_count()} cores, "
        f"{args.seconds:.0f} s per row"
    )
    print(
        f"{'hosts':>5} {'plays/s':>8} {'ratio':>6} {'lock busy':>10} {'busy per 1000 plays/s':>22}"
    )
    for hosts, rate, busy in rows:
        print(
            f"{hosts:5} {rate:8.0f} {rate / rows[0][1]:6.2f} {busy:10.1%} "
            f"{busy / rate * 1000:22.1%}"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
