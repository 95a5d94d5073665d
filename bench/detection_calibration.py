"""Calibration of the hands-only null table, measured on the auditor's own path.

Honest deals (a uniformly random pack, each pile put together either way up at
random) dealt 4-4-5 and tested from the hands alone with ``pile_top="either"``, as
``audit/checks/stacking.py`` runs the test, by ``bench/detection.py``'s
``one_deal``. Prints the share of p-values at or below each alpha, and the share of
scores at or above the table's tabulated values ``t_j`` (``P(S >= t_j) = 10**(-j/25)``
by the table), each against its nominal value with the binomial standard error of
this sample. One seed per process; ``--workers`` processes run side by side.

    .venv/bin/python bench/detection_calibration.py [--deals 200000] [--seeds 101 102]

The figures of docs/detection.md (1,200,000 deals) are ``--deals 600000 --seeds 101 102``.
``--parity N`` also audits ``N`` honest 4-4-5 records of 60 hands without ``dealt_order``
(``audit.record.generate.random_record``, seed 8) with the native extension and with
the Python auditor, and counts the tested hands whose p-values differ.
"""

from __future__ import annotations

import argparse
import math
import random
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import detection  # noqa: E402  (bench/detection.py, beside this file)

from audit.rules.deal import PATTERNS  # noqa: E402
from audit.stacking.tables import pattern_tables  # noqa: E402

ALPHAS = (1e-3, 3e-3, 1e-2, 1e-1)
GRID_POINTS = (25, 50, 60, 70, 75, 80, 90, 100)


def honest_sample(seed: int, deals: int) -> tuple[list[float], list[float]]:
    """Scores and p-values of ``deals`` honest 4-4-5 deals, hands only, piles either way."""
    detection.PILE_TOP = "either"
    detection.READING = None
    shuffle = detection.SCENARIOS["honest (thorough shuffle)"]
    pattern = PATTERNS["4-4-5"]
    rng = random.Random(seed)
    scores: list[float] = []
    ps: list[float] = []
    for _ in range(deals):
        r = detection.one_deal(shuffle, pattern, False, False, rng)
        assert r is not None
        scores.append(r.statistic)
        ps.append(r.p_value)
    return scores, ps


def parity(records: int) -> str:
    """Native against Python p-values of the tested hands of ``records`` honest records."""
    from audit import native
    from audit.auditor import audit_record
    from audit.record.codec import load_record
    from audit.record.generate import random_record

    if not native.available():
        return "native extension not built: parity not measured"
    rng = random.Random(8)
    tested = differ = 0
    for _ in range(records):
        doc = random_record(rng, 60, dealt_order=False)
        fast = native.audit_fast(doc, 0.001)
        assert fast is not None
        python = audit_record(load_record(doc), alpha=0.001)
        for hf, hp in zip(fast["hands"], python["hands"], strict=True):
            if "stacking" in hp or "stacking" in hf:
                tested += 1
                differ += hf["stacking"]["p_value"] != hp["stacking"]["p_value"]
    return f"native against Python: {tested} tested hands, {differ} p-values differ"


def _line(what: str, count: int, n: int, nominal: float) -> str:
    share = count / n
    se = math.sqrt(share * (1 - share) / n)
    return f"| {what} | {nominal:.3e} | {share:.3e} ± {se:.1e} | {share / nominal:.3f} |"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--deals", type=int, default=200_000, help="deals per seed")
    parser.add_argument("--seeds", type=int, nargs="+", default=[101, 102])
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--parity", type=int, default=0, help="records for the native check")
    args = parser.parse_args()
    tables = pattern_tables(PATTERNS["4-4-5"])
    assert tables is not None
    grid = tables.null.grid
    started = time.perf_counter()
    scores: list[float] = []
    ps: list[float] = []
    with ProcessPoolExecutor(max_workers=args.workers) as pool:
        for s, p in pool.map(honest_sample, args.seeds, [args.deals] * len(args.seeds)):
            scores += s
            ps += p
    n = len(ps)
    elapsed = time.perf_counter() - started
    print(
        f"{n} honest 4-4-5 deals, hands only, pile_top=either, seeds {args.seeds} ({elapsed:.0f}s)"
    )
    print("| measured | nominal | honest deals | ratio |")
    print("|---|---|---|---|")
    for alpha in ALPHAS:
        print(_line(f"p <= {alpha:g}", sum(p <= alpha for p in ps), n, alpha))
    for j in GRID_POINTS:
        if j < len(grid):
            count = sum(x >= grid[j] for x in scores)
            print(_line(f"score >= t_{j} = {grid[j]:.4f}", count, n, 10 ** (-j / 25)))
    if args.parity:
        print(parity(args.parity))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
