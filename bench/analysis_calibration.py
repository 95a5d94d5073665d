"""The test for play that knows too much, measured on the simulation's saved boards
(``bench/analysis_sim.py``): honest pairs' false positive rate by skill, and the power
and AUC against a pair that peeks on a fraction f of boards.

The test (:mod:`audit.analysis.knowledge`) compares a pair's best cards, in spots its
view leaves open, with a curve fitted to the field. Here a field is what a 7-table,
14-pair event of N boards gives: 13 x N other pair-boards, drawn from the honest pool.

- False positives: honest sides grouped, within one skill, into disjoint pairs of
  ``FPR_BOARDS`` boards (no resampling), each with a field of its own (13 x 28 honest
  pair-boards it does not hold); the share with p < alpha, by skill and overall.
- Power and AUC: pairs of N boards drawn with replacement (a board peeked on with
  chance f, else an honest board of the same skill); flagged when Holm over the event's
  14 pairs would flag it even with the smallest p of the event (14 p <= alpha); AUC
  against honest pairs of as many boards and random skill.

    python bench/analysis_calibration.py [bench/results/analysis_sim.jsonl] [--reps R]
"""

from __future__ import annotations

import json
import random
import sys
from collections import defaultdict
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from audit.analysis.knowledge import Calibration, Choice, fit, pair_test  # noqa: E402
from audit.analysis.simulate import SKILLS  # noqa: E402

PAIRS_PER_EVENT = 14
FPR_BOARDS = 4
ALPHAS = (0.001, 0.01, 0.05)

Side = list[tuple[float, bool, bool]]
"""A side's open decisions on one board: ``(p, found, favourite)``."""


def tag(sides: list[Side]) -> list[Choice]:
    """A pair's choices over its boards, each with the pair's favourite rate."""
    flat = [c for s in sides for c in s]
    rate = sum(c[2] for c in flat) / len(flat) if flat else 0.5
    return [(p, f, fav, rate) for p, f, fav in flat]


def load(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def auc(cheat: list[float], honest: list[float]) -> float:
    wins = sum((c < h) + 0.5 * (c == h) for c in cheat for h in honest)
    return wins / (len(cheat) * len(honest))


def field_of(pool: dict[int, list[Side]], boards: int, rng: random.Random) -> list[Choice]:
    """The other 13 pairs of an event of ``boards`` boards, each of one random skill."""
    out: list[Choice] = []
    for _ in range(PAIRS_PER_EVENT - 1):
        k = rng.choice(list(pool))
        out += tag([rng.choice(pool[k]) for _ in range(boards)])
    return out


_curves: dict[int, list[Calibration]] = {}


def curve_for(pool: dict[int, list[Side]], boards: int, rng: random.Random) -> Calibration:
    """One of 24 curves fitted to fields of ``boards`` boards (fitting is the slow part)."""
    if boards not in _curves:
        _curves[boards] = [fit(field_of(pool, boards, rng)) for _ in range(24)]
    return rng.choice(_curves[boards])


def main() -> int:
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    reps = 200
    if "--reps" in sys.argv:
        reps = int(sys.argv[sys.argv.index("--reps") + 1])
        args = [a for a in args if a != str(reps)]
    path = Path(args[0] if args else "bench/results/analysis_sim.jsonl")
    rows = load(path)
    rng = random.Random(22)
    honest: dict[int, list[Side]] = defaultdict(list)
    peek: dict[int, list[Side]] = defaultdict(list)
    for r in rows:
        side: Side = [(p, bool(f), bool(fav)) for p, f, fav, *_ in r["tests"]]
        (peek if r["peeking"] else honest)[r["skill"]].append(side)
    pool = [s for k in honest for s in honest[k]]
    boards = len({r["board"] for r in rows})
    print(
        f"{boards} boards at 7 tables: {len(pool)} honest pair-boards, "
        f"{sum(map(len, peek.values()))} peeking; "
        f"{sum(map(len, pool)) / len(pool):.2f} open decisions a pair-board"
    )
    print("\neach skill's open decisions against the curve fitted to the other skills'")
    print("skill (draws, noise)  decisions  found - g a decision  z")
    for k, bot in enumerate(SKILLS):
        own = [c for i in range(0, len(honest[k]), 28) for c in tag(honest[k][i : i + 28])]
        rest = {j: honest[j] for j in honest if j != k}
        z, _p, expected = pair_test(own, fit(field_of(rest, 300, rng)))
        found = sum(c[1] for c in own)
        print(
            f"{k} ({bot.draws:2d}, {bot.noise:.2f})       {len(own):9d}  "
            f"{(found - expected) / len(own):+19.3f}  {z:+.2f}"
        )
    own = [c for k in peek for c in tag(peek[k])]
    z, _p, expected = pair_test(own, fit(field_of(honest, 300, rng)))
    found = sum(c[1] for c in own)
    print(f"peeking               {len(own):9d}  {(found - expected) / len(own):+19.3f}  {z:+.2f}")
    print(f"\nfalse positives: honest pairs of {FPR_BOARDS} boards, disjoint, one skill each")
    print("skill (draws, noise)  pairs  " + "  ".join(f"p<{a}" for a in ALPHAS))
    total: dict[float, int] = defaultdict(int)
    pairs = 0
    for k, bot in enumerate(SKILLS):
        sides = list(honest[k])
        rng.shuffle(sides)
        pvals = []
        for i in range(0, len(sides) - FPR_BOARDS + 1, FPR_BOARDS):
            own = tag(sides[i : i + FPR_BOARDS])
            pvals.append(pair_test(own, curve_for(honest, 28, rng))[1])
            if len(pvals) % 50 == 0:
                print(f"  {k}: {len(pvals)} pairs", file=sys.stderr, flush=True)
        pairs += len(pvals)
        counts = [sum(p < a for p in pvals) for a in ALPHAS]
        for a, c in zip(ALPHAS, counts, strict=True):
            total[a] += c
        cells = "  ".join(f"{c:4d} ({c / len(pvals):.4f})" for c in counts)
        print(f"{k} ({bot.draws:2d}, {bot.noise:.2f})       {len(pvals):5d}  {cells}")
    cells = "  ".join(f"{total[a]:4d} ({total[a] / pairs:.4f})" for a in ALPHAS)
    print(f"all                   {pairs:5d}  {cells}")
    print("\nhonest pairs of N boards of one skill, resampled: share with p < 0.01 / p < 0.05")
    print("boards  " + "  ".join(f"skill {k}     " for k in range(len(SKILLS))))
    for nb in (28, 100, 200):
        shares: list[str] = []
        for k in range(len(SKILLS)):
            pv = []
            for _ in range(reps):
                own = tag([rng.choice(honest[k]) for _ in range(nb)])
                pv.append(pair_test(own, curve_for(honest, nb, rng))[1])
            shares.append(
                f"{sum(p < 0.01 for p in pv) / reps:.3f}/{sum(p < 0.05 for p in pv) / reps:.3f}"
            )
        print(f"{nb:6d}  " + "  ".join(f"{c:13s}" for c in shares), flush=True)
    print("\npower (flagged at alpha 0.001 after Holm over 14 pairs) and AUC, resampled:")
    print("boards  f     power  AUC")
    skills = [k for k in peek if peek[k] and honest[k]]
    for nb in (28, 56, 100, 200):
        hp = []
        for _ in range(reps):
            k = rng.randrange(len(SKILLS))
            own = tag([rng.choice(honest[k]) for _ in range(nb)])
            hp.append(pair_test(own, curve_for(honest, nb, rng))[1])
        for f in (1.0, 0.5, 0.25):
            cp = []
            for _ in range(reps):
                k = rng.choice(skills)
                own = tag(
                    [rng.choice(peek[k] if rng.random() < f else honest[k]) for _ in range(nb)]
                )
                cp.append(pair_test(own, curve_for(honest, nb, rng))[1])
            power = sum(PAIRS_PER_EVENT * p <= 0.001 for p in cp) / reps
            print(f"{nb:6d}  {f:<4}  {power:5.2f}  {auc(cp, hp):.3f}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
