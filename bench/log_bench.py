"""Hand log benchmark: verified appends/s and proof times, side by side with pymerkle.

    .venv/bin/python bench/log_bench.py [--events 20000] [--million 1000000]
                                        [--pg postgresql://...] [--no-pg] [--writers 8]

Appends are *verified* appends: every event's Ed25519 signature is checked, its hand
chain checked, and the batch committed durably (SQLite WAL + synchronous=FULL; PostgreSQL
default fsync) before it is acknowledged. Events are signed beforehand (signing is the
player's cost, not the log's). pymerkle (PyPI, bench environment only) appends the very
same leaf bytes, without signatures or chains; its in-memory tree is not durable.

Proof times at 10^6 entries: the log's tables are filled with 10^6 synthetic leaves and
their complete-subtree hashes by raw inserts (the proofs read exactly what appends
write), then inclusion and consistency proofs are served by ``Log`` methods (SQL reads
included) and checked against the root; pymerkle's InmemoryTree holds the same 10^6
leaves.
"""

from __future__ import annotations

import argparse
import hashlib
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from audit.log import merkle  # noqa: E402
from audit.log.events import canonical_json, event_hash, make_event, sign_event  # noqa: E402
from audit.log.keys import Signer, generate_signer  # noqa: E402
from audit.log.store import nid, open_log  # noqa: E402

ORIGIN = "bench.fairplay/log"
PG_DEFAULT = "postgresql://postgres@127.0.0.1:5432/test"


def _seeded(label: str) -> Signer:
    seed = hashlib.sha256(label.encode()).digest()
    return generate_signer(label.replace(" ", "-"), rng=lambda n: seed[:n])


def make_events(table: str, count: int) -> list[dict[str, Any]]:
    """``count`` signed events: hands of 52 plays by four players in turn."""
    seats = [_seeded(f"{table}-seat{i}") for i in range(4)]
    out: list[dict[str, Any]] = []
    hand, seq, prev = 0, 0, None
    for _ in range(count):
        s = seats[seq % 4]
        ev = sign_event(
            make_event(
                origin=ORIGIN,
                table=table,
                hand=str(hand),
                seq=seq,
                prev=prev,
                actor=s.name,
                type="play",
                body={"card": seq % 52, "trick": seq // 4},
            ),
            s,
        )
        out.append(ev)
        seq, prev = seq + 1, event_hash(ev)
        if seq == 52:
            hand, seq, prev = hand + 1, 0, None
    return out


def _log_key() -> Signer:
    return _seeded(ORIGIN)


def time_appends(url: str, events: list[dict[str, Any]], batch: int) -> float:
    log = open_log(url, ORIGIN, _log_key(), require_registered_keys=False)
    t0 = time.perf_counter()
    for i in range(0, len(events), batch):
        log.append(events[i : i + batch])
    elapsed = time.perf_counter() - t0
    log.close()
    return len(events) / elapsed


def worker(url: str, table: str, count: int, batch: int, start_at: float) -> None:
    events = make_events(table, count)
    log = open_log(url, ORIGIN, _log_key(), require_registered_keys=False)
    time.sleep(max(0.0, start_at - time.time()))
    t0 = time.time()
    for i in range(0, len(events), batch):
        log.append(events[i : i + batch])
    print(f"{t0} {time.time()}", flush=True)
    log.close()


def concurrent_appends(url: str, writers: int, count: int, batch: int) -> float:
    start_at = time.time() + 2.0 + 0.25 * writers + count / 4000
    procs = [
        subprocess.Popen(
            [
                sys.executable,
                __file__,
                "--worker",
                url,
                f"w{i}",
                str(count),
                str(batch),
                str(start_at),
            ],
            stdout=subprocess.PIPE,
            text=True,
        )
        for i in range(writers)
    ]
    spans = []
    for p in procs:
        out, _ = p.communicate()
        if p.returncode != 0:
            raise SystemExit(f"worker failed ({p.returncode})")
        a, b = out.split()
        spans.append((float(a), float(b)))
    if min(a for a, _ in spans) < start_at - 0.05:
        print("  (warning: a worker missed the start barrier)")
    total = writers * count
    return total / (max(b for _, b in spans) - min(a for a, _ in spans))


def group_commit_rate(url: str, threads: int, count: int) -> float:
    """``threads`` request threads each appending one event per call through GroupCommit."""
    import threading

    from audit.log.group import GroupCommit

    per_thread = [make_events(f"g{i}", count) for i in range(threads)]
    log = open_log(url, ORIGIN, _log_key(), require_registered_keys=False)
    writer = GroupCommit(log, 10.0)
    barrier = threading.Barrier(threads + 1)

    def run(events: list[dict[str, Any]]) -> None:
        barrier.wait()
        for ev in events:
            writer.append([ev])

    pool = [threading.Thread(target=run, args=(evs,)) for evs in per_thread]
    for t in pool:
        t.start()
    barrier.wait()
    t0 = time.perf_counter()
    for t in pool:
        t.join()
    elapsed = time.perf_counter() - t0
    writer.close()
    log.close()
    return threads * count / elapsed


def pymerkle_appends(leaves: list[bytes], tmp: Path) -> tuple[float, float]:
    from pymerkle import InmemoryTree, SqliteTree

    t = InmemoryTree(algorithm="sha256")
    t0 = time.perf_counter()
    for leaf in leaves:
        t.append_entry(leaf)
    mem = len(leaves) / (time.perf_counter() - t0)
    if merkle.root_hash(leaves) != t.get_root():
        raise SystemExit("pymerkle disagrees with audit.log.merkle on the root")
    st = SqliteTree(str(tmp / "pymerkle.db"), algorithm="sha256")
    t0 = time.perf_counter()
    for i in range(0, len(leaves), 100):
        st.append_entries(leaves[i : i + 100])
    sq = len(leaves) / (time.perf_counter() - t0)
    st.close()
    return mem, sq


def fill_million(url: str, n: int) -> bytes:
    """Write n synthetic leaves and their subtree hashes into a fresh log; return the root."""
    log = open_log(url, ORIGIN, _log_key(), require_registered_keys=False)
    frontier = merkle.Frontier()
    db = log._db
    chunk = 20_000
    for start in range(0, n, chunk):
        rows = []
        nodes: list[tuple[int, bytes]] = []
        for i in range(start, min(n, start + chunk)):
            leaf = b'{"bench":%d}' % i
            rows.append(
                (
                    i,
                    "bench",
                    str(i // 52),
                    i % 52,
                    "bench",
                    "play",
                    hashlib.sha256(leaf).hexdigest(),
                    leaf,
                )
            )
            nodes.extend((nid(lv, ix), h) for lv, ix, h in frontier.append(merkle.leaf_hash(leaf)))
        with db.write():
            db.executemany(
                "INSERT INTO log_entries (idx, table_id, hand_id, seq, actor, type, event_hash,"
                " leaf) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                rows,
            )
            db.executemany("INSERT INTO log_nodes (nid, hash) VALUES (?, ?)", nodes)
    root = frontier.root()
    if log.root() != root:
        raise SystemExit("stored root differs")
    log.close()
    return root


def proof_times(url: str, n: int, root: bytes, samples: int) -> tuple[float, float, float]:
    log = open_log(url, ORIGIN, _log_key(), require_registered_keys=False)
    rng = random.Random(1)
    incl, cons, ver = [], [], []
    for _ in range(samples):
        index = rng.randrange(n)
        t0 = time.perf_counter()
        proof = log.inclusion_proof(index, n)
        t1 = time.perf_counter()
        merkle.verify_inclusion(merkle.leaf_hash(b'{"bench":%d}' % index), index, n, proof, root)
        t2 = time.perf_counter()
        incl.append(t1 - t0)
        ver.append(t2 - t1)
    for _ in range(samples):
        size1 = rng.randrange(1, n)
        t0 = time.perf_counter()
        log.consistency_proof(size1, n)
        cons.append(time.perf_counter() - t0)
    log.close()
    return statistics.median(incl), statistics.median(cons), statistics.median(ver)


def pymerkle_proofs(n: int, samples: int) -> tuple[float, float, float]:
    from pymerkle import InmemoryTree

    t = InmemoryTree(algorithm="sha256")
    t0 = time.perf_counter()
    for i in range(n):
        t.append_entry(b'{"bench":%d}' % i)
    build = time.perf_counter() - t0
    rng = random.Random(1)
    incl, cons = [], []
    for _ in range(samples):
        index = rng.randrange(n)
        t0 = time.perf_counter()
        t.prove_inclusion(index + 1, n)
        incl.append(time.perf_counter() - t0)
    for _ in range(samples):
        size1 = rng.randrange(1, n)
        t0 = time.perf_counter()
        t.prove_consistency(size1, n)
        cons.append(time.perf_counter() - t0)
    return statistics.median(incl), statistics.median(cons), build


def _pg_url(base: str, schema: str) -> str:
    return f"{base}{'&' if '?' in base else '?'}schema={schema}"


def _drop(base: str, schema: str) -> None:
    import psycopg

    with psycopg.connect(base, autocommit=True) as c:
        c.execute(f'DROP SCHEMA IF EXISTS "{schema}" CASCADE')


def main() -> None:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--events", type=int, default=20_000)
    ap.add_argument("--million", type=int, default=1_000_000)
    ap.add_argument("--writers", type=int, default=8)
    ap.add_argument("--samples", type=int, default=2000)
    ap.add_argument("--pg", default=os.environ.get("FAIRPLAY_TEST_POSTGRES_URL", PG_DEFAULT))
    ap.add_argument("--no-pg", action="store_true")
    ap.add_argument("--worker", nargs=5, metavar=("URL", "TABLE", "N", "BATCH", "START"))
    args = ap.parse_args()
    if args.worker:
        url, table, count, batch, start = args.worker
        worker(url, table, int(count), int(batch), float(start))
        return

    tmp = Path(tempfile.mkdtemp(prefix="log_bench_"))
    schemas: list[str] = []
    print(f"hand log benchmark: {args.events} events, {os.cpu_count()} CPUs, pymerkle side by side")
    t0 = time.perf_counter()
    events = make_events("t", args.events)
    print(
        f"  signing {len(events)} events (the players' cost): "
        f"{len(events) / (time.perf_counter() - t0):,.0f}/s"
    )
    leaves = [canonical_json(e) for e in events]
    try:
        rows: list[tuple[str, float]] = []
        print("\nverified appends per second (signature + chain check + durable commit)")
        for batch in (1, 100):
            n = min(len(events), 2000) if batch == 1 else len(events)
            rate = time_appends(f"sqlite:///{tmp / f's{batch}.db'}", events[:n], batch)
            rows.append((f"SQLite, 1 writer, batch {batch}", rate))
        per = max(500, args.events // args.writers)
        rows.append(
            (
                f"SQLite, {args.writers} threads x 1 event/request, GroupCommit",
                group_commit_rate(f"sqlite:///{tmp / 'sg.db'}", args.writers, per // 2),
            )
        )
        rows.append(
            (
                f"SQLite, {args.writers} writer processes, batch 100",
                concurrent_appends(f"sqlite:///{tmp / 'sc.db'}", args.writers, per, 100),
            )
        )
        if not args.no_pg:
            for batch in (1, 100):
                schema = f"logbench_{uuid.uuid4().hex[:8]}"
                schemas.append(schema)
                n = min(len(events), 2000) if batch == 1 else len(events)
                rows.append(
                    (
                        f"PostgreSQL, 1 writer, batch {batch}",
                        time_appends(_pg_url(args.pg, schema), events[:n], batch),
                    )
                )
            schema = f"logbench_{uuid.uuid4().hex[:8]}"
            schemas.append(schema)
            rows.append(
                (
                    f"PostgreSQL, {args.writers} writer processes, batch 100",
                    concurrent_appends(_pg_url(args.pg, schema), args.writers, per, 100),
                )
            )
            schema = f"logbench_{uuid.uuid4().hex[:8]}"
            schemas.append(schema)
            rows.append(
                (
                    f"PostgreSQL, {args.writers} threads x 1 event/request, GroupCommit",
                    group_commit_rate(_pg_url(args.pg, schema), args.writers, per // 2),
                )
            )
        mem, sq = pymerkle_appends(leaves, tmp)
        rows.append(("pymerkle InmemoryTree append_entry (no signature, not durable)", mem))
        rows.append(("pymerkle SqliteTree append_entries, 100 (no signature)", sq))
        for name, rate in rows:
            print(f"  {name:<66} {rate:>10,.0f}/s   x{rate / sq:6.2f} pymerkle SqliteTree")

        n = args.million
        print(f"\nproofs at {n:,} entries (median of {args.samples}; reads included)")
        sroot = fill_million(f"sqlite:///{tmp / 'million.db'}", n)
        s_incl, s_cons, s_ver = proof_times(
            f"sqlite:///{tmp / 'million.db'}", n, sroot, args.samples
        )
        results = [("audit.log SQLite", s_incl, s_cons)]
        if not args.no_pg:
            schema = f"logbench_{uuid.uuid4().hex[:8]}"
            schemas.append(schema)
            purl = _pg_url(args.pg, schema)
            proot = fill_million(purl, n)
            p_incl, p_cons, _ = proof_times(purl, n, proot, args.samples)
            results.append(("audit.log PostgreSQL", p_incl, p_cons))
        m_incl, m_cons, build = pymerkle_proofs(n, args.samples)
        results.append(("pymerkle InmemoryTree", m_incl, m_cons))
        for name, incl, cons in results:
            print(
                f"  {name:<24} inclusion {incl * 1e3:8.3f} ms (pymerkle/this "
                f"x{m_incl / incl:5.1f})   consistency {cons * 1e3:8.3f} ms "
                f"(x{m_cons / cons:5.1f})"
            )
        print(
            f"  verify_inclusion: {s_ver * 1e6:.0f} us; pymerkle built its {n:,}-leaf tree in "
            f"{build:.1f} s"
        )
    finally:
        if not args.no_pg:
            for schema in schemas:
                _drop(args.pg, schema)
        for f in tmp.iterdir():
            f.unlink()
        tmp.rmdir()


if __name__ == "__main__":
    main()
