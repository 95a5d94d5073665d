"""The record's decision on stacking: honest records clean, a stacking dealer found.

Two measurements, side by side in one run (issue 13):

1. Honest records of 24, 100 and 1,000 hands: the share made irregular by stacking
   findings at alpha = 0.001 (target: at most alpha), and at 0.01 and 0.05, where
   the share is large enough to read. Each record is its hands' honest p-values,
   drawn fresh from ``stacking_test`` on thoroughly shuffled deals (the p-value's law
   under a thorough shuffle is the same for every reference, dealer and record, so
   no hand need be played), half hands only and half with ``dealt_order``, judged by
   the auditor's own rule (``audit.checks.stacking.stacked_findings``). Beside it,
   the old rule (every deal tested at alpha) on the same records.
2. Generated records through the whole auditor (``audit_document``): honest 24-hand
   records, and 24-hand records in which one dealer stacks every deal with two
   riffles and a cut, 4-4-5, hands only, each pile put together either way up at
   random (target: irregular at least 95% of the time).

Run: ``.venv/bin/python bench/record_decision.py [--scale 1.0]`` (part of ``make
bench``; about two minutes on one core at scale 1).
"""

from __future__ import annotations

import argparse
import random
import time

from audit.auditor import audit_document
from audit.checks.stacking import stacked_findings
from audit.record.generate import cut, random_record, riffle
from audit.rules.cards import Card, Seat
from audit.rules.deal import PATTERNS, deal_from_order
from audit.stacking import StackingResult, stacking_test
from audit.stacking.simulate import gathered_pack, random_tricks, thorough

ALPHAS = (0.001, 0.01, 0.05)
PATTERN = PATTERNS["4-4-5"]


def honest_result(rng: random.Random, with_order: bool) -> StackingResult:
    tricks, gathered = random_tricks(rng)
    gathered_pack(tricks, gathered, rng)  # the pack as put together: not used by an honest deal
    dealt = thorough(rng)
    dealer = Seat(rng.randrange(4))
    deal = deal_from_order(dealt, dealer, PATTERN)
    r = stacking_test(tricks, gathered, None, deal, dealer, PATTERN, dealt if with_order else None)
    assert r is not None
    return r


def verdicts(results: list[tuple[Seat, StackingResult | None]]) -> dict[float, tuple[bool, bool]]:
    """Per alpha: (irregular by the record's rule, irregular by testing each deal at alpha)."""
    infos = {
        n: {"p_value": r.p_value, "reference_hand": n, "evidence": {}}
        for n, (_, r) in enumerate(results, start=1)
        if r is not None
    }
    out = {}
    for alpha in ALPHAS:
        rule = any(f.severity == "error" for f in stacked_findings(results, infos, None, alpha))
        per_deal = any(r is not None and r.p_value < alpha for _, r in results)
        out[alpha] = (rule, per_deal)
    return out


def honest_records(rng: random.Random, hands: int, records: int) -> None:
    counts = {a: [0, 0] for a in ALPHAS}
    started = time.perf_counter()
    for _ in range(records):
        results: list[tuple[Seat, StackingResult | None]] = []
        for i in range(hands):
            dealer = Seat(i % 4)
            results.append((dealer, None if i < 2 else honest_result(rng, i % 2 == 0)))
        for a, (rule, per_deal) in verdicts(results).items():
            counts[a][0] += rule
            counts[a][1] += per_deal
    cells = " | ".join(
        f"{counts[a][0] / records:.4f} ({counts[a][1] / records:.3f})" for a in ALPHAS
    )
    print(
        f"| {hands} | {records} | {cells} | <= 0.001 | {time.perf_counter() - started:.0f} s |",
        flush=True,
    )


def two_riffles(pack: list[Card], rng: random.Random) -> list[Card]:
    return cut(riffle(riffle(pack, rng), rng), rng)


def generated(rng: random.Random, records: int, stacker: Seat | None) -> tuple[float, float]:
    irregular = 0
    started = time.perf_counter()
    for _ in range(records):
        doc = random_record(
            rng,
            24,
            dealt_order=False,
            prepare=two_riffles if stacker is not None else None,
            stacker=stacker,
            turn_piles=0.5,
        )
        irregular += audit_document(doc, alpha=0.001)["verdict"] == "irregular"
    return irregular / records, time.perf_counter() - started


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--scale", type=float, default=1.0, help="multiply every record count")
    ap.add_argument("--seed", type=int, default=13)
    args = ap.parse_args()
    rng = random.Random(args.seed)

    def n(x: int) -> int:
        return max(1, round(x * args.scale))

    print("1. honest records, p-values from stacking_test on thorough shuffles (4-4-5)")
    print("   share irregular by the record's rule (in brackets: every deal tested at alpha)")
    print("| hands | records | alpha=0.001 | alpha=0.01 | alpha=0.05 | target at 0.001 | time |")
    print("|---|---|---|---|---|---|---|")
    for hands, records in ((24, 3000), (100, 600), (1000, 100)):
        honest_records(rng, hands, n(records))
    print()
    print("2. generated 24-hand records through audit_document, alpha = 0.001, 4-4-5,")
    print("   hands only, piles either way up at random")
    print("| records | dealer S stacks (two riffles + cut) | irregular | target | time |")
    print("|---|---|---|---|---|")
    for stacker, target, count in ((None, "<= 0.001", 300), (Seat.S, ">= 0.95", 300)):
        share, seconds = generated(rng, n(count), stacker)
        label = "no (honest)" if stacker is None else "yes, every deal of his"
        print(f"| {n(count)} | {label} | {share:.4f} | {target} | {seconds:.0f} s |", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
