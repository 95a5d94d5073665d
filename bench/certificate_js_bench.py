"""The browser's certificate verifier beside ``fairplay tournament verify``, one run.

Bots play a 2-table and a 20-table Mitchell (2 rounds of 1 board each: 4 and 40 hands,
about 250 and 2,300 signed events) on the service in this process (SQLite, a real
socket); each finished event's certificate bundle is fetched and checked, best of
``--repeat``, alternated, by:

- ``fairplay tournament verify BUNDLE --key KEY`` as a person runs it (a new process:
  its wall time includes Python's start and imports) and its ``verify_bundle`` alone in
  this process (``--jobs 1``);
- the page's own module, ``verifyCertificate`` (api/static/js/certificate.js), under Node
  (the same ES module and Web Crypto the browser runs; V8 as in Chromium): the time of the
  function alone, and the wall time of the ``node`` process.

The browser's figure is measured under Node, not in Chromium: the same engine, no page.
The browser leaves one check to the command (each hand's statistical audit), so it does a
little less work than verify. The events are dealt under version 1 (a fixed beacon): a
version 2 event adds drand's BLS signature check, one per event, about 25-70 ms in the
browser (docs/browser.md) and 2 ms in verify.

    .venv/bin/python bench/certificate_js_bench.py [--tables 2 20] [--repeat 3]
        [--save DIR | --load DIR]

The exit status is 1 when a bundle does not verify with either verifier.
"""

from __future__ import annotations

import argparse
import json
import logging
import random
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from api import create_app  # noqa: E402
from api.client import Client  # noqa: E402
from api.tournament_bot import TournamentBots  # noqa: E402
from audit.tournament.certificate import verify_bundle  # noqa: E402

ADMIN = "bench-admin-token"
_SCRIPT = Path(sys.executable).parent / "fairplay"
FAIRPLAY = [str(_SCRIPT)] if _SCRIPT.exists() else [sys.executable, "-m", "audit.cli"]
BEACON = {"source": "bench-beacon", "round": 1, "randomness": "ab" * 32}


def play(tables: list[int], out: Path) -> None:
    """Play a Mitchell of each size; save its bundle and the log key in ``out``."""
    from werkzeug.serving import make_server

    logging.getLogger("werkzeug").setLevel(logging.WARNING)
    data = Path(tempfile.mkdtemp(prefix="certjs-bench-"))
    app = create_app(
        {
            "data_dir": str(data),
            "admin_token": ADMIN,
            "testing": True,
            "upload_per_hour": 0,
            "register_per_hour": 0,
        }
    )
    server = make_server("127.0.0.1", 0, app, threaded=True)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        client = Client(f"http://127.0.0.1:{server.server_port}", admin_token=ADMIN, timeout=120)
        for t in tables:
            spec = {
                "name": f"Bench {t} tables",
                "format": "pairs-duplicate",
                "tables": t,
                "boards_per_round": 1,
                "rounds": 2,
            }
            started = time.perf_counter()
            bots = TournamentBots.open(client, spec, 2 * t, random.Random(t), BEACON)
            if bots.run(timeout=1800)["phase"] != "over":
                raise SystemExit(f"the {t}-table event did not finish")
            bundle = bots.certificate_bundle(timeout=600)
            print(f"played {t} tables in {time.perf_counter() - started:.1f} s", flush=True)
            (out / f"tables-{t}.json").write_text(json.dumps(bundle))
        (out / "key.txt").write_text(app.extensions["fairplay"].hand_log.signer.verifier_key())
    finally:
        server.shutdown()
        app.extensions["fairplay"].close()
        shutil.rmtree(data, ignore_errors=True)


def python_cli(path: Path, key: str) -> tuple[float, bool]:
    started = time.perf_counter()
    done = subprocess.run(
        [*FAIRPLAY, "tournament", "verify", str(path), "--key", key],
        cwd=ROOT,
        capture_output=True,
        text=True,
    )
    return time.perf_counter() - started, done.returncode == 0


def python_inprocess(bundle: dict[str, Any], key: str) -> float:
    started = time.perf_counter()
    verify_bundle(bundle, key)
    return time.perf_counter() - started


def node_run(path: Path, key_file: Path) -> tuple[float, float, bool, int]:
    """(the function's seconds, the process's seconds, passed, checks left to the command)."""
    started = time.perf_counter()
    done = subprocess.run(
        ["node", "tests/js/verify_certificate.mjs", str(key_file), str(path)],
        cwd=ROOT,
        capture_output=True,
        text=True,
    )
    wall = time.perf_counter() - started
    if done.returncode not in (0, 1) or not done.stdout.strip():
        raise SystemExit(f"node failed: {done.stderr[-2000:]}")
    result = json.loads(done.stdout.splitlines()[0])
    left = sum(1 for c in result["checks"] if c["ok"] is None)
    return result["ms"] / 1000, wall, bool(result["ok"]), left


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--tables", type=int, nargs="+", default=[2, 20])
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--save", metavar="DIR", help="keep the bundles and the log key here")
    ap.add_argument("--load", metavar="DIR", help="measure bundles --save'd before (no play)")
    args = ap.parse_args()
    if shutil.which("node") is None:
        print("node is not installed: skipped (the browser's verifier runs under Node here)")
        return 0
    folder = Path(args.load or args.save or tempfile.mkdtemp(prefix="certjs-bundles-"))
    folder.mkdir(parents=True, exist_ok=True)
    if not args.load:
        play(args.tables, folder)
    key_file = folder / "key.txt"
    key = key_file.read_text().strip()
    status = 0
    rows = []
    for t in args.tables:
        path = folder / f"tables-{t}.json"
        bundle = json.loads(path.read_text())
        best: dict[str, float] = {}
        ok = True
        left = 0
        for _ in range(args.repeat):  # alternated, best of each
            cli, passed = python_cli(path, key)
            ok &= passed
            inproc = python_inprocess(bundle, key)
            fn, wall, passed, left = node_run(path, key_file)
            ok &= passed
            for name, v in (("cli", cli), ("verify_bundle", inproc), ("js", fn), ("node", wall)):
                best[name] = min(best.get(name, v), v)
        status |= 0 if ok else 1
        rows.append((t, len(bundle["events"]), len(bundle["certificate"]["hands"]), best, ok, left))
    print(
        f"\n{'tables':>6} {'events':>7} {'hands':>5} | {'verify CLI':>10} {'verify_bundle':>13} | "
        f"{'browser fn':>10} {'node proc':>9} | {'fn/CLI':>6} {'fn/bundle':>9}  all passed"
    )
    for t, events, hands, b, ok, left in rows:
        print(
            f"{t:>6} {events:>7} {hands:>5} | {b['cli']:>9.2f}s {b['verify_bundle']:>12.2f}s | "
            f"{b['js']:>9.2f}s {b['node']:>8.2f}s | {b['js'] / b['cli']:>6.2f} "
            f"{b['js'] / b['verify_bundle']:>9.2f}  {'yes' if ok else 'NO'} "
            f"({left} check{'' if left == 1 else 's'} left to the command)"
        )
    print(
        f"best of {args.repeat}; the browser's verifier under Node "
        f"{subprocess.run(['node', '--version'], capture_output=True, text=True).stdout.strip()}"
        "; verify_bundle is --jobs 1 in this process"
    )
    if not args.load and not args.save:
        shutil.rmtree(folder, ignore_errors=True)
    return status


if __name__ == "__main__":
    sys.exit(main())
