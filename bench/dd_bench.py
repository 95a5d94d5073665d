"""The Cayenne double-dummy solver against DDS (through endplay), side by side.

Every card of whole hands is analysed (52 positions a hand: each legal card's value at
each point of a random legal play), by both solvers on the same trump and grand deals in
one run; the values must agree. Prints per-hand times (CPU time of this process by
default, so that other work on a loaded machine does not count; ``--wall`` for wall
time), the median and the 99th percentile of each, and of the per-hand ratio (ours / DDS).

    python bench/dd_bench.py [--hands N] [--from-card K] [--seed S] [--wall]

``--from-card K`` starts each hand's analysis after K cards (the early positions are the
slow ones for our search; see docs/analysis.md).
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from audit.analysis.solver import native_available, position, solve_position  # noqa: E402
from tests.audit.analysis.helpers import (  # noqa: E402
    STRAINS,
    dds_values,
    random_deal,
    random_play,
)


def _pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--hands", type=int, default=3)
    ap.add_argument("--from-card", type=int, default=0)
    ap.add_argument("--seed", type=int, default=22)
    ap.add_argument("--wall", action="store_true", help="wall time instead of CPU time")
    args = ap.parse_args()
    clock = time.perf_counter if args.wall else time.process_time
    try:
        import endplay  # noqa: F401
    except ImportError:
        print("endplay is not installed (pip install -e '.[dev]'); nothing to compare")
        return 0
    if not native_available():
        print("the C solver is not built; nothing to time")
        return 0
    rng = random.Random(args.seed)
    ours: list[float] = []
    dds: list[float] = []
    dds_values(position(random_deal(rng), "grand", "N", []))  # DDS's one-off start-up
    for hand in range(args.hands):
        deal = random_deal(rng)
        contract = rng.choice(STRAINS)
        leader = rng.choice("NESW")
        played = random_play(rng, deal, contract, leader, 52)
        t_ours = t_dds = 0.0
        for k in range(args.from_card, 52):
            pos = position(deal, contract, leader, played[:k])
            t0 = clock()
            a = solve_position(pos, native=True)
            t1 = clock()
            b = dds_values(pos)
            t2 = clock()
            if a != b:
                print(f"MISMATCH hand {hand} card {k}: {a} != {b}")
                return 1
            t_ours += t1 - t0
            t_dds += t2 - t1
        ours.append(t_ours)
        dds.append(t_dds)
        print(
            f"hand {hand:3d} {contract:5s}: ours {t_ours * 1e3:10.1f} ms  DDS {t_dds * 1e3:8.1f} ms"
            f"  ratio {t_ours / t_dds:8.2f}",
            flush=True,
        )
    ratios = [o / d for o, d in zip(ours, dds, strict=True)]
    positions = 52 - args.from_card
    print(f"\n{args.hands} hands, {positions} positions a hand, values equal on every position")
    for name, xs in (("ours", ours), ("DDS", dds)):
        print(
            f"{name:5s} per hand: median {statistics.median(xs) * 1e3:10.1f} ms"
            f"  p99 {_pct(xs, 0.99) * 1e3:10.1f} ms"
        )
    print(
        f"ratio ours/DDS per hand: median {statistics.median(ratios):.2f}  p99 {_pct(ratios, 0.99):.2f}"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
