"""The analysis on real play: the bridge boards with full play held in tests/vectors/pbn
(BBO pairs events), a sanity check of the judge, not a calibration (docs/analysis.md).

Bridge card play is Cayenne's trump and grand play, but declarer sees dummy: the test's
draws, which give declarer only his own hand, do not fit him, and the declaring side is
expected to find far more best cards than its "view" says. Opening leads and the cards
after the ``--from-card``-th are judged with our solver (equal to DDS: docs/analysis.md).

    python bench/analysis_real.py [--from-card 12] [--samples 7] [--jobs 2]
"""

from __future__ import annotations

import argparse
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from audit.analysis.inputs import hands_of  # noqa: E402
from audit.analysis.judge import DECLARER, DEFENCE, FROM_CARD, HandPlay, Settings, decisions  # noqa: E402
from audit.analysis.knowledge import IDENTITY, pair_test  # noqa: E402
from audit.analysis.solver import Position, solve_position  # noqa: E402
from audit.analysis.stats import wilson  # noqa: E402
from audit.record.pbn import import_pbn  # noqa: E402

PBN = Path(__file__).resolve().parent.parent / "tests/vectors/pbn"


def _lead(hand: HandPlay) -> tuple[bool, int]:
    """Whether the opening lead was double-dummy best, and the best cards' number."""
    pos = Position(hand.deal, hand.contract, hand.leader.side.other, 0, hand.leader, ())
    values = solve_position(pos)
    best = min(values.values())  # the leader's side is the contract side's adversaries
    return values[hand.moves[0]] == best, sum(v == best for v in values.values())


def _work(
    args: tuple[HandPlay, int, int],
) -> tuple[tuple[bool, int], list[tuple[str, int, int, float | None, bool, bool]]]:
    hand, from_card, samples = args
    lead = _lead(hand)
    out = []
    for d in decisions(hand, Settings(from_card=from_card, samples=samples)):
        out.append((d.role, d.cost, d.options, d.p_view, d.hidden, bool(d.favourite)))
    return lead, out


def _pct(k: int, n: int) -> str:
    lo, hi = wilson(k, n)
    return f"{100 * k / n:5.1f}% ({100 * lo:.1f}-{100 * hi:.1f}) of {n}" if n else "-"


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--from-card", type=int, default=FROM_CARD)
    ap.add_argument("--samples", type=int, default=7)
    ap.add_argument("--jobs", type=int, default=2)
    args = ap.parse_args()
    hands: list[HandPlay] = []
    for f in sorted(PBN.glob("*.pbn")):
        doc, _skipped = import_pbn(f.read_text(encoding="latin-1"))
        got, _ = hands_of([(f.name, doc)])
        hands += got
    started = time.perf_counter()
    with ProcessPoolExecutor(max_workers=args.jobs) as pool:
        results = list(pool.map(_work, [(h, args.from_card, args.samples) for h in hands]))
    leads = [r[0] for r in results]
    print(f"{len(hands)} boards played to the last trick ({time.perf_counter() - started:.0f} s)")
    if leads:
        found = sum(ok for ok, _ in leads)
        forced = sum(n == 13 for _, n in leads)
        print(f"opening leads double-dummy best: {_pct(found, len(leads))}")
        print(f"  (leads where every card is best: {forced})")
    for role in (DECLARER, DEFENCE):
        cards = [c for _, cs in results for c in cs if c[0] == role and c[2] > 1]
        errs = sum(c[1] > 0 for c in cards)
        lost = sum(c[1] for c in cards)
        print(
            f"{role:9s} errors after card {args.from_card}: {_pct(errs, len(cards))}, "
            f"{lost} tricks given away"
        )
        own = [
            (c[3] or 0.0, c[1] == 0, c[5], 0.5)
            for _, cs in results
            for c in cs
            if c[0] == role and c[4]
        ]
        if own:
            z, _p, expected = pair_test(own, IDENTITY)
            found = sum(c[1] for c in own)
            print(
                f"{role:9s} best in open spots: {found} found, {expected:.1f} by the view "
                f"alone (z {z:+.1f})"
            )
    return 0


if __name__ == "__main__":
    sys.exit(main())
