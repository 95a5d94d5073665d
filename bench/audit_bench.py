"""Full audit throughput (parse, validate, replay, score, every check) on generated records,
beside the cost of merely parsing the same JSON. One core, one process, one run.

Run: ``make bench`` or ``.venv/bin/python bench/audit_bench.py [--hands N]``.
"""

from __future__ import annotations

import argparse
import json
import random

from timing import best_of

from audit.auditor import audit_record
from audit.generate import random_record
from audit.record import load_record


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--hands", type=int, default=10000)
    args = ap.parse_args()
    rng = random.Random(2026)
    per_record = 40
    n_records = max(1, args.hands // per_record)
    print(f"audit benchmark: {n_records * per_record} generated hands per variant, one core")
    for label, kw in (
        ("with dealt_order (rising-sequence test)", {}),
        ("hands only (no dealt_order)", {"dealt_order": False}),
    ):
        texts = [json.dumps(random_record(rng, per_record, **kw)) for _ in range(n_records)]
        hands = n_records * per_record

        def parse(texts: list[str] = texts) -> None:
            for t in texts:
                json.loads(t)

        def full(texts: list[str] = texts) -> None:
            for t in texts:
                audit_record(load_record(json.loads(t)))

        t_parse = best_of(parse)
        t_full = best_of(full)
        rate = hands / t_full
        print(f"  {label}")
        print(f"    json.loads only   {hands / t_parse:>9,.0f} hands/s")
        print(
            f"    full audit        {rate:>9,.0f} hands/s   {t_full / t_parse:5.1f}x the parse time"
        )
        print(
            f"    targets: >= 5,000 hands/s: {'met' if rate >= 5000 else 'NOT met'}; "
            f"<= 3x parse: {'met' if t_full <= 3 * t_parse else 'NOT met'}"
        )


if __name__ == "__main__":
    main()
