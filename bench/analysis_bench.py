"""``fairplay analyse`` of a 24-board, 8-table Mitchell end to end, against the audit of
the same records (``audit_document`` per record, as ``fairplay audit`` does), side by side
in one run.

The event's hands are played by random legal cards (tests/tournament/events.py), so the
judged positions are random ones; the analysis runs with its defaults (every card after
the 12th judged, 15 draws per open decision) in ``--jobs`` processes (default: every
core), as the command does. Prints both times and their ratio; with ``--seen-draws N``,
also the analysis with the seen-hand test (docs/analysis.md) and its ratio to the plain one.

    python bench/analysis_bench.py [--jobs N] [--seed S] [--seen-draws N]
"""

from __future__ import annotations

import argparse
import os
import random
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from audit.analysis.inputs import hands_of  # noqa: E402
from audit.analysis.judge import Settings  # noqa: E402
from audit.analysis.report import analyse  # noqa: E402
from audit.auditor import audit_document  # noqa: E402
from tests.tournament.events import mitchell_event  # noqa: E402


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    ap.add_argument("--seed", type=int, default=22)
    ap.add_argument("--seen-draws", type=int, default=0)
    args = ap.parse_args()
    records = mitchell_event(
        random.Random(args.seed), tables=8, boards_per_round=3, rounds=8, name="Bench Pairs"
    )
    docs = [(f"round {r['round']} table {r['table']}", r) for r in records]
    boards = {h["board"] for r in records for h in r["hands"]}
    hands = sum(len(r["hands"]) for r in records)
    print(f"{len(records)} records, {len(boards)} boards, {hands} hands; {args.jobs} processes")
    t0 = time.perf_counter()
    for _src, doc in docs:
        audit_document(doc)
    t_audit = time.perf_counter() - t0
    plays, skipped = hands_of(docs)

    def timed(settings: Settings) -> tuple[float, dict[str, Any]]:
        t0 = time.perf_counter()
        if args.jobs > 1:
            with ProcessPoolExecutor(max_workers=args.jobs) as pool:
                doc = analyse(
                    plays, settings, skipped=skipped,
                    mapper=lambda f, xs: pool.map(f, xs, chunksize=4),
                )  # fmt: skip
        else:
            doc = analyse(plays, settings, skipped=skipped)
        return time.perf_counter() - t0, doc

    t_analyse, doc = timed(Settings())
    print(f"audit of the records:    {t_audit:8.2f} s ({1e3 * t_audit / hands:.1f} ms a hand)")
    print(
        f"analysis of the records: {t_analyse:8.2f} s ({1e3 * t_analyse / hands:.1f} ms a hand, "
        f"{doc['cards_judged']} cards judged, {len(doc['pairs'])} pairs tested)"
    )
    print(f"ratio analysis / audit: {t_analyse / t_audit:.0f}")
    if args.seen_draws:
        t_seen, _doc = timed(Settings(seen_draws=args.seen_draws))
        print(
            f"with --seen-draws {args.seen_draws}: {t_seen:8.2f} s; "
            f"ratio to the analysis without: {t_seen / t_analyse:.2f}"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
