"""Simulate boards for the calibration and power of the test for play that knows too
much (docs/analysis.md), and save every side's judged choices (JSON lines).

Each board is played at ``--tables`` tables (7) by pairs of random skill; on every other
board the N-S pair of table 0 sees its left-hand opponents' hands (``--peek-every 1``: on
every board, for more peeking pair-boards a run). ``--seen-draws N`` also records, for
each open decision, what a player who saw one opponent's hand would play
(:attr:`audit.analysis.judge.Decision.seen`) and what seeing it adds to each card's value
(:attr:`audit.analysis.judge.Decision.seen_gain`; docs/analysis.md, statistics tried). Slow:
about 10 s of CPU a board of 7 tables judged from the 8th card, 4 s from the 12th;
``bench/analysis_calibration.py`` reads the saved results.

    python bench/analysis_sim.py --boards 300 --jobs 2 --out bench/results/analysis_sim.jsonl
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from dataclasses import asdict
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from audit.analysis.judge import FROM_CARD  # noqa: E402
from audit.analysis.simulate import simulate_board  # noqa: E402


def _one(args: tuple[int, argparse.Namespace]) -> list[dict[str, Any]]:
    seed, a = args
    peeker = seed % a.peek_every == a.peek_every - 1
    rows = simulate_board(
        seed, tables=a.tables, from_card=a.from_card, samples=a.samples, peeker=peeker,
        seen_draws=a.seen_draws,
    )  # fmt: skip
    return [{"board": seed, **asdict(r)} for r in rows]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--boards", type=int, default=40)
    ap.add_argument("--start", type=int, default=0)
    ap.add_argument("--from-card", type=int, default=FROM_CARD)
    ap.add_argument("--samples", type=int, default=15)
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--peek-every", type=int, default=2, help="a peeking pair every N boards")
    ap.add_argument("--tables", type=int, default=7)
    ap.add_argument(
        "--seen-draws", type=int, default=0,
        help="also draw each open decision's deals with one opponent's hand seen (a pilot)",
    )  # fmt: skip
    ap.add_argument("--out", default="bench/results/analysis_sim.jsonl")
    args = ap.parse_args()
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    tasks = [(s, args) for s in range(args.start, args.start + args.boards)]
    started = time.perf_counter()
    with ProcessPoolExecutor(max_workers=args.jobs) as pool, out.open("a") as f:
        for n, rows in enumerate(pool.map(_one, tasks), 1):
            for r in rows:
                f.write(json.dumps(r) + "\n")
            f.flush()
            rate = n / (time.perf_counter() - started)
            print(f"\r{n}/{args.boards} boards ({rate:.2f}/s)", end="", file=sys.stderr, flush=True)
    print(file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
