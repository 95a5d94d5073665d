"""Signed plays per second through the HTTP service, with p50/p99 latency.

Starts ``fairplay serve`` (gunicorn, several workers) on a free port, on SQLite and on
PostgreSQL, and drives 1, 4 and 16 tables at once, each table by its own client process
whose four bot players sign every call and play with their own keys (the bots' fast
mode: each seat reads its own cards once per hand with a signed request, then follows
the play on a local rules state). Every play is a signed event checked by the service
(signature, key, chain, rules), appended to the log and applied to the hand; the clients
count only accepted plays. The figures include the shuffle ceremony, the end-of-hand
audit and checkpoint, which run inside the measured window.

    .venv/bin/python bench/api_bench.py [--seconds 10] [--tables 1,4,16]
        [--backends sqlite,postgresql] [--workers 4] [--pg URL]

Target: at least 500 signed plays/s on the 2-core reference machine.
"""

from __future__ import annotations

import argparse
import multiprocessing as mp
import os
import random
import secrets
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

ADMIN = os.environ.get("FAIRPLAY_BENCH_ADMIN") or "bench-admin-" + secrets.token_hex(8)
os.environ["FAIRPLAY_BENCH_ADMIN"] = ADMIN  # the same token in the spawned client processes


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def drive(url: str, seconds: float, seed: int, start_at: float, out: Any) -> None:
    """One table: play hands until the window closes; report plays and latencies."""
    from api.bot import TableBots
    from api.client import Client

    bots = TableBots.open(Client(url, admin_token=ADMIN), random.Random(seed), name=f"b{seed}")
    bots.fast = True
    number = 1
    time.sleep(max(0.0, start_at - time.time()))
    deadline = start_at + seconds
    plays_in_window = 0
    while time.time() < deadline:
        before = bots.plays
        bots.play_hand(number, on_action=None)
        plays_in_window += bots.plays - before
        number += 1
    out.put((bots.plays, bots.latencies, time.time() - start_at))


def run_server(
    url_db: str | None,
    workers: int,
    threads: int,
    data: Path,
    extra_env: dict[str, str] | None = None,
) -> tuple[subprocess.Popen[bytes], str]:
    port = free_port()
    cmd = [
        sys.executable,
        "-m",
        "audit.cli",
        "serve",
        "--port",
        str(port),
        "--workers",
        str(workers),
        "--threads",
        str(threads),
        "--data-dir",
        str(data),
    ]
    if url_db:
        cmd += ["--database", url_db]
    env = dict(os.environ, FAIRPLAY_ADMIN_TOKEN=ADMIN, **(extra_env or {}))
    proc = subprocess.Popen(
        cmd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, cwd=ROOT
    )
    url = f"http://127.0.0.1:{port}"
    from api.client import Client

    c = Client(url)
    deadline = time.monotonic() + 30
    while True:
        try:
            c.call("GET", "/healthz")
            return proc, url
        except OSError:
            if time.monotonic() > deadline or proc.poll() is not None:
                raise SystemExit("the server did not start") from None
            time.sleep(0.2)


def measure(url: str, tables: int, seconds: float) -> dict[str, float]:
    ctx = mp.get_context("spawn")
    out: Any = ctx.Queue()
    start_at = time.time() + 2.0 + 0.15 * tables  # every table opened before the window
    procs = [
        ctx.Process(target=drive, args=(url, seconds, i, start_at, out)) for i in range(tables)
    ]
    for p in procs:
        p.start()
    results = [out.get() for _ in procs]
    for p in procs:
        p.join()
    plays = sum(r[0] for r in results)
    elapsed = max(r[2] for r in results)
    lat = sorted(x for r in results for x in r[1])
    return {
        "plays": plays,
        "elapsed": elapsed,
        "rate": plays / elapsed,
        "p50": statistics.median(lat) * 1000,
        "p99": lat[min(len(lat) - 1, int(len(lat) * 0.99))] * 1000,
    }


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--seconds", type=float, default=10.0)
    parser.add_argument("--tables", default="1,4,16")
    parser.add_argument("--backends", default="sqlite,postgresql")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--threads", type=int, default=16)
    parser.add_argument(
        "--pg",
        default=os.environ.get(
            "FAIRPLAY_TEST_POSTGRES_URL", "postgresql://postgres@127.0.0.1:5432/test"
        ),
    )
    args = parser.parse_args()
    counts = [int(x) for x in args.tables.split(",")]
    rows: list[tuple[str, int, dict[str, float]]] = []
    for backend in args.backends.split(","):
        with tempfile.TemporaryDirectory() as tmp:
            schema = None
            db = None
            if backend == "postgresql":
                schema = "api_bench_" + secrets.token_hex(4)
                db = f"{args.pg}{'&' if '?' in args.pg else '?'}schema={schema}"
                try:
                    import psycopg

                    psycopg.connect(args.pg, connect_timeout=3).close()
                except Exception as exc:  # noqa: BLE001 - report and skip this backend
                    print(f"postgresql: skipped ({exc})")
                    continue
            proc, url = run_server(db, args.workers, args.threads, Path(tmp))
            try:
                for n in counts:
                    r = measure(url, n, args.seconds)
                    rows.append((backend, n, r))
                    print(
                        f"{backend:10} {n:3} tables  {r['rate']:7.0f} plays/s  "
                        f"p50 {r['p50']:6.1f} ms  p99 {r['p99']:6.1f} ms",
                        flush=True,
                    )
            finally:
                proc.terminate()
                proc.wait(timeout=30)
                if schema is not None:
                    import psycopg

                    with psycopg.connect(args.pg, autocommit=True) as conn:
                        conn.execute(f'DROP SCHEMA IF EXISTS "{schema}" CASCADE')
    if not rows:
        return 1
    base = rows[0][2]["rate"]
    print()
    print(
        f"signed plays/s through HTTP ({args.workers} gunicorn workers x {args.threads} threads, "
        f"{os.cpu_count()} cores, "
        f"{args.seconds:.0f} s per cell); ratio to {rows[0][0]} with {rows[0][1]} table(s)"
    )
    print(f"{'backend':10} {'tables':>6} {'plays/s':>8} {'ratio':>6} {'p50 ms':>7} {'p99 ms':>7}")
    for backend, n, r in rows:
        print(
            f"{backend:10} {n:6} {r['rate']:8.0f} {r['rate'] / base:6.2f} "
            f"{r['p50']:7.1f} {r['p99']:7.1f}"
        )
    best = max(r["rate"] for _, _, r in rows)
    print(f"target 500 signed plays/s: best {best:.0f} ({'met' if best >= 500 else 'NOT met'})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
