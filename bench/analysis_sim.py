"""Simulate boards for the calibration and power of the test for play that knows too
much (docs/analysis.md), and save every side's judged choices (JSON lines).

Each board is played at 7 tables by pairs of random skill; on every other board the
N-S pair of table 0 sees its left-hand opponents' hands. Slow (about 4 s a board);
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


def _one(args: tuple[int, int, int]) -> list[dict[str, Any]]:
    seed, from_card, samples = args
    return [
        {"board": seed, **asdict(r)}
        for r in simulate_board(seed, from_card=from_card, samples=samples, peeker=seed % 2 == 1)
    ]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--boards", type=int, default=40)
    ap.add_argument("--start", type=int, default=0)
    ap.add_argument("--from-card", type=int, default=FROM_CARD)
    ap.add_argument("--samples", type=int, default=15)
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--out", default="bench/results/analysis_sim.jsonl")
    args = ap.parse_args()
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    tasks = [(s, args.from_card, args.samples) for s in range(args.start, args.start + args.boards)]
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
