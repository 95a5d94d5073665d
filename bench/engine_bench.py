"""Replay plus scoring throughput on generated games, beside the cost of parsing the JSON.

Run: ``make bench`` or ``.venv/bin/python bench/engine_bench.py [--hands N]``. One core,
one process; every figure is measured in this run, side by side.

The Python engine (``replay_hand`` and the scorer on typed records) is measured first.
The last line is the same work in the auditor's native fast path (``audit/native/csrc/``, when
built): validating the parsed JSON, replaying and scoring every hand and building the
report's hands and rubbers, without the stacking tests; it does more than the Python
lines, so it is a conservative figure for the native replay and scoring.
"""

from __future__ import annotations

import argparse
import json
import random

from timing import best_of

from audit import native
from audit.record.codec import load_record
from audit.record.generate import random_record
from audit.rules.replay import replay_hand
from audit.rules.sitting import hand_facts, new_sheet


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--hands", type=int, default=20000)
    args = ap.parse_args()
    rng = random.Random(2026)
    per_record = 50
    docs = [random_record(rng, per_record) for _ in range(max(1, args.hands // per_record))]
    hands = sum(len(d["hands"]) for d in docs)
    texts = [json.dumps(d) for d in docs]
    records = [load_record(d) for d in docs]

    def parse() -> None:
        for t in texts:
            json.loads(t)

    def load() -> None:
        for d in docs:
            load_record(d)

    def replay_score() -> None:
        for r in records:
            sheet = new_sheet(r)
            for h in r.hands:
                facts = hand_facts(h, replay_hand(h), r.ruleset)
                if facts is not None:
                    sheet.score(facts, h.number)

    def replay_only() -> None:
        for r in records:
            for h in r.hands:
                replay_hand(h)

    fast = native._native if native.available() else None
    native._configure()

    def native_replay_score() -> None:
        assert fast is not None
        for d in docs:
            # independent_deals: no stacking tests (and no dealer rotation check)
            assert fast.audit_hands(d["hands"], (4, 4, 5), False, (0, 0), (0, 0), None, True)

    t_parse = best_of(parse, 5)
    t_load = best_of(load, 5)
    t_replay = best_of(replay_only, 5)
    t_rs = best_of(replay_score, 5)
    print(f"engine benchmark: {hands} generated hands ({len(texts)} records), one core")
    print(f"  json.loads only           {hands / t_parse:>10,.0f} hands/s  (1.00x parse time)")
    print(
        f"  validate + typed records  {hands / t_load:>10,.0f} hands/s  ({t_load / t_parse:.2f}x parse time)"
    )
    print(
        f"  replay only               {hands / t_replay:>10,.0f} hands/s  ({t_replay / t_parse:.2f}x parse time)"
    )
    print(
        f"  replay + scoring          {hands / t_rs:>10,.0f} hands/s  ({t_rs / t_parse:.2f}x parse time)"
    )
    best = hands / t_rs
    if fast is not None:
        t_native = best_of(native_replay_score, 5)
        best = max(best, hands / t_native)
        print(
            f"  native: validate + replay + scoring + report objects"
            f"  {hands / t_native:>10,.0f} hands/s  ({t_native / t_parse:.2f}x parse time)"
        )
    else:
        print("  native fast path not built: Python engine only")
    print(f"  target: replay + scoring >= 25,000 hands/s: {'met' if best >= 25000 else 'NOT met'}")


if __name__ == "__main__":
    main()
