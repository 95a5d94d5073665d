"""Full audit throughput (parse, validate, replay, score, every check, the stacking tests,
the report) on generated records, beside the cost of merely parsing the same JSON.
One core, one process, one run: every figure is measured side by side.

``full audit`` is what ``fairplay audit`` and the service run: ``audit_document`` on
the parsed JSON, which takes the native fast path (``audit/native/csrc/``) for records
in order. ``pure Python`` is the Python auditor alone (``FAIRPLAY_NATIVE=0``), the
definition of the report. The third variant carries honest false alarms and stacked
deals (records with findings), so the cost of reporting is in the figures too.

Run: ``make bench`` or ``.venv/bin/python bench/audit_bench.py [--hands N]``.
"""

from __future__ import annotations

import argparse
import json
import random
import time
from collections.abc import Callable
from typing import Any

from timing import best_of

from audit import native
from audit.auditor import audit_document, audit_record
from audit.record.codec import load_record
from audit.record.generate import cut, random_record, riffle


def _two_riffles(pack: list[int], rng: random.Random) -> list[int]:
    return cut(riffle(riffle(pack, rng), rng), rng)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--hands", type=int, default=10000)
    ap.add_argument("--repeat", type=int, default=3, help="runs of each (the fastest counts)")
    ap.add_argument(
        "--cpu",
        action="store_true",
        help="time by this process's CPU time (a shared machine) instead of the wall clock",
    )
    args = ap.parse_args()
    clock = time.process_time if args.cpu else time.perf_counter
    rng = random.Random(2026)
    per_record = 40
    n_records = max(1, args.hands // per_record)
    hands = n_records * per_record
    print(
        f"audit benchmark: {hands} generated hands per variant ({per_record} per record), one core"
    )
    print(f"native fast path: {'built' if native.available() else 'NOT built (pure Python only)'}")
    print(f"timed by {'CPU time' if args.cpu else 'the wall clock'}, the fastest of {args.repeat}")
    variants: list[tuple[str, dict[str, Any]]] = [
        ("with dealt_order (rising-sequence test)", {}),
        ("hands only (no dealt_order)", {"dealt_order": False}),
        (
            "hands only, every pack riffled twice (stacked-deal findings)",
            {"dealt_order": False, "prepare": _two_riffles},
        ),
    ]
    for label, kw in variants:
        texts = [json.dumps(random_record(rng, per_record, **kw)) for _ in range(n_records)]
        findings = sum(len(audit_document(json.loads(t))["findings"]) for t in texts)

        def parse(texts: list[str] = texts) -> None:
            for t in texts:
                json.loads(t)

        def full(texts: list[str] = texts) -> None:
            for t in texts:
                audit_document(json.loads(t))

        def pure(texts: list[str] = texts) -> None:
            for t in texts:
                audit_record(load_record(json.loads(t)))

        runs: list[tuple[str, Callable[[], None]]] = [
            ("json.loads only", parse),
            ("full audit", full),
            ("pure Python audit", pure),
        ]
        times = {name: best_of(fn, args.repeat, clock) for name, fn in runs}
        t_parse = times["json.loads only"]
        print(f"  {label}: {findings} findings in all")
        for name, t in times.items():
            ratio = "" if name == "json.loads only" else f"   {t / t_parse:5.2f}x the parse time"
            print(f"    {name:<18} {hands / t:>9,.0f} hands/s{ratio}")
        rate = hands / times["full audit"]
        print(
            f"    targets: >= 5,000 hands/s: {'met' if rate >= 5000 else 'NOT met'}; "
            f"<= 3x parse: {'met' if times['full audit'] <= 3 * t_parse else 'NOT met'}"
        )


if __name__ == "__main__":
    main()
