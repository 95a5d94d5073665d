"""A pairs event of bots on the HTTP service (PostgreSQL), and its certificate's check.

Starts ``fairplay serve`` (gunicorn) on a fresh PostgreSQL schema (dropped afterwards),
and as the director creates a Mitchell of ``--tables`` tables (2 x tables pairs, 4 x
tables players, each with an Ed25519 key of its own), registers every player and entrant,
starts it and reveals the entrants' seeds (the service deals and opens round 1). Then
``--clients`` client processes, each holding every entrant's key and playing the table
numbers ``k, k + clients, ...`` (:class:`api.tournament_bot.TournamentBots`), play the
event to its end: each signs every call and play of its seats and posts it, reading its
cards and the hand's head with signed reads in between (the tables are private until the
event ends).

It prints the signed actions posted per second over the whole play, their latency (p50,
p99, max; client side, each ``POST .../events`` alone), the time of each round (from
its ``tournament_round`` to its ``tournament_round_end`` event, the service's clock: this
includes opening the round's tables and boards), and the peak memory of the service
(the sum of the resident sets of the gunicorn master and workers, sampled every 0.2 s
from /proc). Then it asks for the certificate bundle, which the service builds in the
background from the event's end (409 NOT_READY meanwhile), and prints the build's time
(from the ``tournament_end`` event to the stored row), the wait and the serving of the
stored bundle. It fetches each finished hand's proof bundle and record
(``GET /v1/tables/{t}/hands/{n}/proof`` and ``.../record``), and, in this process, best
of ``--repeat`` each, alternated, times ``fairplay tournament verify`` of the bundle
(``--jobs 1`` and ``--jobs JOBS``, wall and CPU time) against

- auditing the same hand records the way ``fairplay audit`` does (read each record file,
  ``audit_document``): the ratio of issue #12's goal;
- checking the same hands through the log, as an auditor of each hand would: its proof
  bundle as ``fairplay verify`` checks it (checkpoints, every event's signature, the
  chain, the inclusions, the consistency, the end), then its record (read, its hash
  against the one the log's ``end`` event names, ``audit_document``, its verdict against
  the logged one);
- the least any check of every event's signature takes on this machine: each event's
  Ed25519 equation alone (cryptography's ``Ed25519PublicKey.verify``, keys, messages and
  signatures prepared beforehand, best of 3 runs a round), the lower bound for any
  verifier that checks every signature, on one core and divided among all;

and beside them verify's recomputation of the certificate alone (``certify`` from the
bundle's events and records) and the events' signature checks as verify makes them
(key, signing input, signature).

    .venv/bin/python bench/tournament_bench.py [--tables 100] [--rounds 2] [--boards 1]
        [--clients 4] [--workers 2] [--threads 16] [--repeat 3] [--jobs N] [--pg URL]
        [--save DIR | --load DIR] [--keep-schema]

A 100-table Mitchell may run to 99 rounds (``--rounds 99 --boards 2``: 19,800 boards,
about a million signed actions, hours on this machine); the defaults (2 rounds of 1
board: 200 boards played, about 10,600 signed actions) keep the bench to about two
minutes on the 2-core reference machine. ``--save DIR`` keeps the bundle, the hands'
proofs and records, and the log key; ``--load DIR`` measures the verification of a saved
event again without playing; ``--keep-schema`` keeps the database (its schema is
printed) to profile it later. Goals (issue #12): p99 under 100 ms per action, the
verification within twice the audit's time (out of reach: the signatures' lower bound
alone is many times the audit, and the bench prints by how much). The exit status is 1
only when the event cannot be played or its
certificate does not verify (without PostgreSQL it says so and skips, as
``hosts_bench.py`` does).
"""

from __future__ import annotations

import argparse
import base64
import contextlib
import hashlib
import io
import json
import multiprocessing as mp
import os
import random
import secrets
import statistics
import sys
import tempfile
import threading
import time
from datetime import datetime
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from api_bench import ADMIN, run_server  # noqa: E402

from api.client import Client, Identity  # noqa: E402

BEACON = {"source": "bench", "round": 1, "randomness": "5e" * 32}


class TimedClient(Client):
    """A client that keeps the latency of every signed action it posts, and whether the
    action ended its hand (the service then also records, audits and logs the hand and
    moves the table, or the event, on)."""

    latencies: list[tuple[float, bool]]

    def act(self, identity: Identity, *args: Any, **kwargs: Any) -> dict[str, Any]:
        t0 = time.perf_counter()
        ended = False
        try:
            head = super().act(identity, *args, **kwargs)
            ended = head.get("phase") in ("over", "void")
            return head
        finally:
            self.latencies.append((time.perf_counter() - t0, ended))


def drive(
    url: str,
    tid: str,
    entrants: dict[str, dict[str, str]],
    tables: list[int],
    seed: int,
    start_at: float,
    timeout: float,
    out: Any,
) -> None:
    """One client process: play these table numbers until the event is over."""
    from api.tournament_bot import Entrant, TournamentBots

    client = TimedClient(url, admin_token=ADMIN, timeout=120)
    client.latencies = []
    keys = {p: Entrant.from_json(e) for p, e in entrants.items()}
    bots = TournamentBots(
        client, tid, keys, random.Random(seed), pause=0.2, tables=frozenset(tables)
    )
    time.sleep(max(0.0, start_at - time.time()))
    try:
        bots.run(timeout=timeout)
        out.put((client.latencies, time.time() - start_at, None))
    except Exception as exc:  # noqa: BLE001 - reported by the parent
        out.put((client.latencies, time.time() - start_at, f"{type(exc).__name__}: {exc}"))


class Memory:
    """Peak resident memory of a process and its descendants, sampled from /proc."""

    def __init__(self, pid: int, every: float = 0.2) -> None:
        self.pid = pid
        self.every = every
        self.peak = 0
        self.processes = 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def _tree(self) -> list[int]:
        children: dict[int, list[int]] = {}
        for entry in os.listdir("/proc"):
            if not entry.isdigit():
                continue
            try:
                with open(f"/proc/{entry}/stat", encoding="ascii", errors="replace") as f:
                    ppid = int(f.read().rsplit(")", 1)[1].split()[1])
            except (OSError, IndexError, ValueError):
                continue
            children.setdefault(ppid, []).append(int(entry))
        tree, todo = [], [self.pid]
        while todo:
            pid = todo.pop()
            tree.append(pid)
            todo.extend(children.get(pid, []))
        return tree

    @staticmethod
    def _rss(pid: int) -> int:
        try:
            with open(f"/proc/{pid}/status", encoding="ascii") as f:
                for line in f:
                    if line.startswith("VmRSS:"):
                        return int(line.split()[1]) * 1024
        except OSError:
            pass
        return 0

    def sample(self) -> int:
        tree = self._tree()
        total = sum(self._rss(p) for p in tree)
        if total > self.peak:
            self.peak, self.processes = total, len(tree)
        return total

    def _run(self) -> None:
        while not self._stop.wait(self.every):
            self.sample()

    def __enter__(self) -> Memory:
        self.sample()
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join()


def _seconds(iso: str) -> float:
    return datetime.fromisoformat(iso.replace("Z", "+00:00")).timestamp()


def round_times(client: Client, tid: str) -> list[float]:
    """Each round's time, from its tournament_round event to its tournament_round_end."""
    events = client.call("GET", f"/v1/tournaments/{tid}/events")["events"]
    began: dict[int, float] = {}
    times: list[float] = []
    for item in events:
        ev = item["event"]
        if ev["type"] == "tournament_round":
            began[ev["body"]["round"]] = _seconds(ev["time"])
        elif ev["type"] == "tournament_round_end":
            times.append(_seconds(ev["time"]) - began[ev["body"]["round"]])
    return times


def bundle_build_time(args: argparse.Namespace, client: Client, tid: str) -> float:
    """Seconds from the event's tournament_end to its stored bundle (the service's clock):
    the background build, started by the worker that logged the end."""
    import psycopg

    events = client.call("GET", f"/v1/tournaments/{tid}/events")["events"]
    end = next(e["event"]["time"] for e in events if e["event"]["type"] == "tournament_end")
    with psycopg.connect(args.pg) as conn:
        row = conn.execute(
            f'SELECT created_at FROM "{args.schema}".api_certificates WHERE tournament_id = %s',
            (tid,),
        ).fetchone()
    assert row is not None
    return _seconds(str(row[0])) - _seconds(end)


def _p99(sorted_seconds: list[float]) -> float:
    """The 99th percentile of sorted latencies, in milliseconds."""
    if not sorted_seconds:
        return 0.0
    return sorted_seconds[min(len(sorted_seconds) - 1, int(len(sorted_seconds) * 0.99))] * 1000


def play(args: argparse.Namespace, url: str, memory: Memory) -> dict[str, Any]:
    from api.tournament_bot import TournamentBots

    client = Client(url, admin_token=ADMIN, timeout=600)
    spec = {
        "name": "Bench pairs",
        "format": "pairs-duplicate",
        "tables": args.tables,
        "rounds": args.rounds,
        "boards_per_round": args.boards,
    }
    t0 = time.perf_counter()
    bots = TournamentBots.open(client, spec, 2 * args.tables, random.Random(1), BEACON)
    entered = time.perf_counter() - t0
    print(
        f"  {4 * args.tables} players and {2 * args.tables} pairs entered in {entered:.1f} s",
        flush=True,
    )
    t0 = time.perf_counter()
    bots.reveal_all(client.call("GET", f"/v1/tournaments/{bots.tid}"))  # the last one deals
    doc = client.call("GET", f"/v1/tournaments/{bots.tid}")
    if doc["phase"] != "playing":
        raise SystemExit(f"the event is {doc['phase']} after every reveal")
    print(
        f"  seeds revealed, boards dealt, round 1 open in {time.perf_counter() - t0:.1f} s",
        flush=True,
    )
    ctx = mp.get_context("spawn")
    out: Any = ctx.Queue()
    entrants = {p: e.to_json() for p, e in bots.entrants.items()}
    start_at = time.time() + 2.0 + 0.5 * args.clients  # every client ready before
    timeout = 3600.0 * 24
    procs = [
        ctx.Process(
            target=drive,
            args=(
                url,
                bots.tid,
                entrants,
                list(range(k + 1, args.tables + 1, args.clients)),
                k,
                start_at,
                timeout,
                out,
            ),
        )
        for k in range(args.clients)
    ]
    for p in procs:
        p.start()
    results = [out.get() for _ in procs]
    for p in procs:
        p.join()
    errors = [r[2] for r in results if r[2]]
    if errors:
        raise SystemExit("a client failed: " + "; ".join(errors))
    elapsed = max(r[1] for r in results)
    lat = sorted(x for r in results for x, _ in r[0])
    ends = sorted(x for r in results for x, ended in r[0] if ended)
    within = sorted(x for r in results for x, ended in r[0] if not ended)
    load = os.getloadavg()[0]
    rounds = round_times(client, bots.tid)
    play_peak = memory.peak
    key = client.call("GET", "/v1/log/key").strip()
    path = f"/v1/tournaments/{bots.tid}/certificate/bundle"
    t0 = time.perf_counter()
    client.call_when_ready("GET", path, timeout=3600)  # built in the background
    waited = time.perf_counter() - t0
    t0 = time.perf_counter()
    bundle = client.call("GET", path)  # the stored bundle, served
    served = time.perf_counter() - t0
    bundle_text = json.dumps(bundle)
    built = bundle_build_time(args, client, bots.tid)
    t0 = time.perf_counter()
    hands = []  # what an auditor of each hand fetches: its proof bundle and its record
    for r in bundle["records"]:
        hand_path = f"/v1/tables/{r['table']}/hands/{r['hand']}"
        hands.append(
            {
                "proof": client.call("GET", hand_path + "/proof"),
                "record": client.call("GET", hand_path + "/record"),
            }
        )
    fetched = time.perf_counter() - t0
    client.close()
    return {
        "tid": bots.tid,
        "actions": len(lat),
        "elapsed": elapsed,
        "p50": statistics.median(lat) * 1000,
        "p99": _p99(lat),
        "max": lat[-1] * 1000,
        "ends": len(ends),
        "within_p99": _p99(within),
        "ends_p50": statistics.median(ends) * 1000 if ends else 0.0,
        "ends_p99": _p99(ends),
        "rounds": rounds,
        "load": load,
        "play_peak": play_peak,
        "key": key,
        "bundle": bundle_text,
        "served": served,
        "hands": hands,
        "fetched": fetched,
        "waited": waited,
        "built": built,
    }


def _cpu() -> float:
    """CPU seconds of this process and of its children that have been waited for."""
    import resource

    c = resource.getrusage(resource.RUSAGE_CHILDREN)
    return time.process_time() + c.ru_utime + c.ru_stime


def signature_bound(bundle: dict[str, Any], repeat: int) -> dict[str, Any]:
    """The least time any check of every event's signature takes on this machine: each
    event's Ed25519 equation alone (cryptography's ``Ed25519PublicKey.verify``, the key
    objects, messages and signatures prepared beforehand), best of ``repeat`` runs over
    the same events, in one process."""
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey

    from audit.log.events import event_verifier, signing_input

    keys: dict[str, Ed25519PublicKey] = {}
    checks = []
    for item in bundle["events"]:
        ev = item["event"]
        if ev["key"] not in keys:
            keys[ev["key"]] = Ed25519PublicKey.from_public_bytes(event_verifier(ev).public_key)
        checks.append((keys[ev["key"]], base64.b64decode(ev["signature"]), signing_input(ev)))
    best = float("inf")
    for _ in range(repeat):
        t0 = time.perf_counter()
        for key, sig, message in checks:
            key.verify(sig, message)
        best = min(best, time.perf_counter() - t0)
    return {"bound": best, "signatures_n": len(checks), "per": best / len(checks)}


def verify_vs_audit(
    bundle_text: str, key: str, hands: list[dict[str, Any]], repeat: int, jobs: int
) -> dict[str, Any]:
    """``fairplay tournament verify`` of the bundle (``--jobs 1`` and ``--jobs JOBS``)
    against ``fairplay audit``'s work on its hand records (read each record file,
    audit_document) and against checking the same hands through the log (each hand's
    proof bundle as ``fairplay verify`` checks it, then its record: the hash the log's
    ``end`` event names, and ``fairplay audit``'s verdict against the logged one); best
    of ``repeat``, alternated. Beside them, verify's recomputation of the certificate
    alone (``certify``), the events' signature checks as verify makes them (key, signing
    input, signature) and the bound of :func:`signature_bound`."""
    from audit.auditor import audit_document
    from audit.cli import main as fairplay
    from audit.log.bundle import verify_bundle as verify_hand
    from audit.log.events import canonical_json, event_verifier, loads, signing_input
    from audit.log.keys import Verifier
    from audit.record.codec import read_json_file
    from audit.tournament.certificate import certify

    bundle = json.loads(bundle_text)
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "bundle.json"
        path.write_text(bundle_text, encoding="utf-8")
        files = []
        for n, r in enumerate(bundle["records"]):
            f = Path(tmp) / f"hand-{n}.json"
            f.write_text(json.dumps(r["record"]), encoding="utf-8")
            files.append(f)
        hand_files = []
        for n, h in enumerate(hands):
            proof, record = Path(tmp) / f"proof-{n}.json", Path(tmp) / f"record-{n}.json"
            proof.write_text(json.dumps(h["proof"]), encoding="utf-8")
            record.write_text(json.dumps(h["record"]), encoding="utf-8")
            hand_files.append((proof, record))
        said = io.StringIO()

        def verify(j: int) -> None:
            said.seek(0)
            said.truncate()
            argv = ["tournament", "verify", str(path), "--key", key, "--jobs", str(j)]
            with contextlib.redirect_stdout(said), contextlib.redirect_stderr(said):
                code = fairplay(argv)
            if code != 0:
                raise SystemExit(f"tournament verify failed: {said.getvalue().strip()}")

        def audit() -> None:
            for f in files:
                audit_document(read_json_file(f))

        vkey = Verifier.from_text(key)

        def through_log() -> None:  # fairplay verify PROOF, then fairplay audit RECORD
            for proof_file, record_file in hand_files:
                proof = loads(proof_file.read_text(encoding="utf-8"))
                verify_hand(proof, vkey)  # signatures, chain, inclusions, consistency, end
                end = proof["events"][-1]["event"]["body"]
                record = read_json_file(record_file)
                if hashlib.sha256(canonical_json(record)).hexdigest() != end["record_sha256"]:
                    raise SystemExit(f"{record_file}: not the record the log's end names")
                if audit_document(record)["verdict"] != end["verdict"]:
                    raise SystemExit(f"{record_file}: not the verdict the log's end names")

        events = [{"index": e["index"], "event": e["event"]} for e in bundle["events"]]
        records = {(r["table"], r["hand"]): r["record"] for r in bundle["records"]}
        cert = bundle["certificate"]

        def recompute() -> None:  # verify's step 4: the certificate from events and records
            certify(
                origin=cert["origin"],
                log_key=key,
                checkpoint=cert["checkpoint"],
                tournament=cert["event"]["id"],
                events=events,
                records=records,
            )

        def signatures() -> None:  # each event's signature, as verify checks it
            for e in events:
                ev = e["event"]
                sig = base64.b64decode(ev["signature"])
                event_verifier(ev).verify(signing_input(ev), sig)

        steps = {
            "verify": lambda: verify(1),
            "verify_jobs": lambda: verify(jobs),
            "audit": audit,
            "through_log": through_log,
            "recompute": recompute,
            "signatures": signatures,
        }
        best = {k: float("inf") for k in steps}
        cpu = {k: float("inf") for k in steps}
        own = {k: float("inf") for k in steps}  # this process's CPU alone
        bound: dict[str, Any] = {"bound": float("inf")}
        for _ in range(repeat):
            for name, fn in steps.items():
                c0, p0, t0 = _cpu(), time.process_time(), time.perf_counter()
                fn()
                best[name] = min(best[name], time.perf_counter() - t0)
                cpu[name] = min(cpu[name], _cpu() - c0)
                own[name] = min(own[name], time.process_time() - p0)
            b = signature_bound(bundle, 3)
            if b["bound"] < bound["bound"]:
                bound = b
    return {
        **best,
        **bound,
        "jobs_cpu": cpu["verify_jobs"],
        "jobs_own_cpu": own["verify_jobs"],
        "said": said.getvalue().strip(),
        "records": len(files),
        "hands": len(hand_files),
        "hand_events": sum(len(h["proof"]["events"]) for h in hands),
        "events": len(bundle["events"]),
        "bytes": len(bundle_text),
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tables", type=int, default=100, help="Mitchell tables (1-100)")
    parser.add_argument("--rounds", type=int, default=2, help="rounds to play")
    parser.add_argument("--boards", type=int, default=1, help="boards a round")
    parser.add_argument("--clients", type=int, default=4, help="client processes")
    parser.add_argument("--workers", type=int, default=2, help="gunicorn workers")
    parser.add_argument("--threads", type=int, default=16, help="threads per worker")
    parser.add_argument("--repeat", type=int, default=3, help="verify/audit runs (best of)")
    parser.add_argument(
        "--jobs", type=int, default=None, help="tournament verify --jobs (default: every core)"
    )
    parser.add_argument(
        "--save", metavar="DIR", help="keep the bundle, the hands' proofs and the log key here"
    )
    parser.add_argument(
        "--load", metavar="DIR", help="measure the verification of a --save'd event (no play)"
    )
    parser.add_argument(
        "--keep-schema",
        action="store_true",
        help="keep the PostgreSQL schema (its name is printed), to profile the event later",
    )
    parser.add_argument(
        "--pg",
        default=os.environ.get(
            "FAIRPLAY_TEST_POSTGRES_URL", "postgresql://postgres@127.0.0.1:5432/test"
        ),
    )
    args = parser.parse_args()
    from audit.log.sigbatch import default_jobs

    jobs = args.jobs or default_jobs()
    if args.load:
        saved = Path(args.load)
        r = {
            "bundle": (saved / "bundle.json").read_text(encoding="utf-8"),
            "key": (saved / "log-key.txt").read_text(encoding="utf-8").strip(),
            "hands": json.loads((saved / "hands.json").read_text(encoding="utf-8")),
        }
        print(
            f"tournament bench: the event saved in {saved}; {os.cpu_count()} cores, load "
            f"average {os.getloadavg()[0]:.1f}",
            flush=True,
        )
        v = verify_vs_audit(r["bundle"], r["key"], r["hands"], args.repeat, jobs)
        print()
        print(f"event: {v['said']}")
        verification_table(v, jobs)
        return 0
    try:
        import psycopg

        psycopg.connect(args.pg, connect_timeout=3).close()
    except Exception as exc:  # noqa: BLE001 - report and skip, as hosts_bench.py does
        print(f"postgresql: skipped ({exc})")
        return 0
    print(
        f"tournament bench: Mitchell, {args.tables} tables ({2 * args.tables} pairs, "
        f"{4 * args.tables} players), {args.rounds} round(s) x {args.boards} board(s); "
        f"{args.clients} client processes; fairplay serve {args.workers} workers x "
        f"{args.threads} threads on PostgreSQL; {os.cpu_count()} cores, load average "
        f"{os.getloadavg()[0]:.1f}",
        flush=True,
    )
    schema = "tournament_bench_" + secrets.token_hex(4)
    args.schema = schema
    db = f"{args.pg}{'&' if '?' in args.pg else '?'}schema={schema}"
    with tempfile.TemporaryDirectory() as tmp:
        proc = None
        try:
            proc, url = run_server(db, args.workers, args.threads, Path(tmp))
            with Memory(proc.pid) as memory:
                r = play(args, url, memory)
            peak, processes = memory.peak, memory.processes
        finally:
            if proc is not None:
                proc.terminate()
                proc.wait(timeout=30)
            if args.keep_schema:
                print(f"  schema {schema} kept", flush=True)
            else:
                with psycopg.connect(args.pg, autocommit=True) as conn:
                    conn.execute(f'DROP SCHEMA IF EXISTS "{schema}" CASCADE')
    if args.save:
        Path(args.save).mkdir(parents=True, exist_ok=True)
        (Path(args.save) / "bundle.json").write_text(r["bundle"], encoding="utf-8")
        (Path(args.save) / "log-key.txt").write_text(r["key"] + "\n", encoding="utf-8")
        (Path(args.save) / "hands.json").write_text(json.dumps(r["hands"]), encoding="utf-8")
    v = verify_vs_audit(r["bundle"], r["key"], r["hands"], args.repeat, jobs)
    rate = r["actions"] / r["elapsed"]
    rounds = r["rounds"]
    mib = 1024 * 1024
    print()
    print(f"event {r['tid']}: {v['said']}")
    print(f"{'signed actions':34} {r['actions']:>10}")
    print(f"{'play time':34} {r['elapsed']:>10.1f} s")
    print(f"{'actions/s':34} {rate:>10.0f}")
    print(f"{'latency per action p50':34} {r['p50']:>10.1f} ms")
    print(f"{'latency per action p99':34} {r['p99']:>10.1f} ms")
    print(f"{'latency per action max':34} {r['max']:>10.1f} ms")
    print(f"{'  p99 of actions within a hand':34} {r['within_p99']:>10.1f} ms")
    print(f"{'  actions that ended a hand':34} {r['ends']:>10}")
    print(f"{'  their p50 / p99':34} {r['ends_p50']:>10.1f} / {r['ends_p99']:.1f} ms")
    for n, t in enumerate(rounds, 1):
        print(f"{f'round {n} (tables opened to round end)':34} {t:>10.1f} s")
    print(f"{'service peak RSS while playing':34} {r['play_peak'] / mib:>10.0f} MiB")
    print(
        f"{'service peak RSS with the bundle':34} {peak / mib:>10.0f} MiB ({processes} processes)"
    )
    print(
        f"{'certificate bundle built in':34} {r['built']:>10.1f} s ({v['bytes'] / mib:.1f} MiB; "
        "in the background, from the end to the stored row)"
    )
    print(
        f"{'  asked for at the end, ready after':34} {r['waited']:>10.1f} s "
        "(409 NOT_READY, Retry-After meanwhile)"
    )
    print(f"{'  the stored bundle served in':34} {r['served']:>10.2f} s")
    print(
        f"{'hand proofs and records fetched in':34} {r['fetched']:>10.1f} s ({v['hands']} x 2 GETs)"
    )
    verification_table(v, jobs)
    print(
        f"load average at the end of play: {r['load']:.1f} (other work on the machine "
        "inflates the latencies)"
    )
    p99_met = r["p99"] < 100
    print(f"goal p99 < 100 ms per action: {r['p99']:.1f} ms ({'met' if p99_met else 'NOT met'})")
    ratio = v["verify_jobs"] / v["audit"]
    print(f"goal verify <= 2 x audit: x{ratio:.2f} ({'met' if ratio <= 2 else 'NOT met'})")
    return 0


def verification_table(v: dict[str, Any], jobs: int) -> None:
    """The verification's lines: verify, the audit, the hands through the log, the bound."""
    audit, bound = v["audit"], v["bound"]
    cores = os.cpu_count() or 1
    print(f"{'audit of the ' + str(v['records']) + ' hand records':34} {audit:>10.3f} s")
    print(
        f"{'the ' + str(v['hands']) + ' hands through the log':34} {v['through_log']:>10.2f} s "
        f"({v['hand_events']} events: each hand's proof bundle as fairplay verify checks "
        "it, its record's hash and audit)"
    )
    print(f"{'tournament verify --jobs 1':34} {v['verify']:>10.2f} s ({v['events']} events)")
    print(
        f"{f'tournament verify --jobs {jobs}':34} {v['verify_jobs']:>10.2f} s "
        f"({v['jobs_cpu']:.2f} s CPU, its processes together; {v['jobs_own_cpu']:.2f} s "
        "of it in this process, the rest in its workers)"
    )
    print(
        f"{'  of which recomputing the cert.':34} {v['recompute']:>10.2f} s "
        f"(x{v['recompute'] / audit:.2f} the audit)"
    )
    print(
        f"{'  signature checks as verify does':34} {v['signatures']:>10.2f} s "
        f"(x{v['signatures'] / audit:.2f} the audit)"
    )
    print(
        f"{'lower bound: the signatures alone':34} {bound:>10.2f} s ({v['signatures_n']} "
        f"x {v['per'] * 1e6:.0f} us: Ed25519PublicKey.verify alone; {bound / cores:.2f} s "
        f"on all {cores} cores)"
    )
    for name, t in (("--jobs 1", v["verify"]), (f"--jobs {jobs}", v["verify_jobs"])):
        print(f"{f'verify {name} / audit':34} {t / audit:>10.1f}")
    print(f"{'lower bound / audit':34} {bound / audit:>10.1f}")
    print(
        f"{'verify --jobs 1 / lower bound':34} {v['verify'] / bound:>10.2f} "
        f"(--jobs {jobs}: {v['verify_jobs'] / bound:.2f}, against the bound on all cores "
        f"{v['verify_jobs'] / (bound / cores):.2f})"
    )
    print(
        f"{'verify --jobs 1 / hands through log':34} {v['verify'] / v['through_log']:>10.2f} "
        f"(--jobs {jobs}: {v['verify_jobs'] / v['through_log']:.2f})"
    )
    print(
        f"verify <= 2 x audit is out of reach: checking the signatures alone takes at least "
        f"x{bound / audit:.0f} the audit on one core (x{bound / cores / audit:.0f} on all "
        f"{cores}), x{bound / (2 * audit):.0f} (x{bound / cores / (2 * audit):.0f}) the goal"
    )


if __name__ == "__main__":
    sys.exit(main())
