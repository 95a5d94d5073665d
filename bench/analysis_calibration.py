"""The test for play that knows too much, measured on the simulation's saved boards
(``bench/analysis_sim.py``): honest pairs' false positive rate, each skill's mean excess,
and the power and AUC of the test against a pair that peeks on a fraction f of boards.

Each board was played at 7 tables; a side's share on a board is computed against the
other six sides sitting the same way (:func:`audit.analysis.knowledge.board_share`).

- False positives: honest sides grouped, within one skill, into disjoint pairs of
  ``--fpr-boards`` boards; the share of those with p < alpha (no resampling).
- Power and AUC: pairs of N boards drawn with replacement from the boards (a board
  peeked on with chance f, else one of the same pair's honest boards); flagged when
  Holm over the event's 14 pairs would flag it even with the smallest p of the
  event (14 p <= alpha); AUC against honest pairs of as many boards.

    python bench/analysis_calibration.py [bench/results/analysis_sim.jsonl]
"""

from __future__ import annotations

import json
import random
import sys
from collections import defaultdict
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from audit.analysis.knowledge import BoardShare, board_share, field_test  # noqa: E402
from audit.analysis.simulate import SKILLS  # noqa: E402

PAIRS_PER_EVENT = 14


def load(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def shares(rows: list[dict[str, Any]]) -> list[tuple[dict[str, Any], BoardShare]]:
    by_board: dict[tuple[int, int], list[dict[str, Any]]] = defaultdict(list)
    for r in rows:
        by_board[(r["board"], r["side"])].append(r)
    out = []
    for group in by_board.values():
        for r in group:
            field = [tuple(t) for o in group if o is not r for t in o["tests"]]
            own = [tuple(t) for t in r["tests"]]
            out.append((r, board_share(own, field)))  # type: ignore[arg-type]
    return out


def auc(cheat: list[float], honest: list[float]) -> float:
    wins = sum((c < h) + 0.5 * (c == h) for c in cheat for h in honest)
    return wins / (len(cheat) * len(honest))


def main() -> int:
    path = Path(sys.argv[1] if len(sys.argv) > 1 else "bench/results/analysis_sim.jsonl")
    rows = load(path)
    boards = len({r["board"] for r in rows})
    data = shares(rows)
    honest = [(r, s) for r, s in data if not r["peeking"]]
    peek = [(r, s) for r, s in data if r["peeking"]]
    print(f"{boards} boards, {len(honest)} honest sides, {len(peek)} peeking sides")
    print("\nexcess per decision the view leaves open, honest, by skill:")
    print("skill (draws, noise)  sides  decisions  raw found-p  centred  z(centred)")
    for k, bot in enumerate(SKILLS):
        mine = [(r, s) for r, s in honest if r["skill"] == k]
        n = sum(s.decisions for _, s in mine)
        raw = sum(f - p for r, _ in mine for p, f in r["tests"])
        z, _ = field_test([s for _, s in mine])
        cen = sum(s.excess for _, s in mine)
        print(
            f"{k} ({bot.draws:2d}, {bot.noise:.2f})       {len(mine):5d}  {n:9d}  "
            f"{raw / max(n, 1):+11.3f}  {cen / max(n, 1):+7.3f}  {z:+9.2f}"
        )
    n = sum(s.decisions for _, s in peek)
    raw = sum(f - p for r, _ in peek for p, f in r["tests"])
    print(
        f"peeking              {len(peek):5d}  {n:9d}  {raw / max(n, 1):+11.3f}  "
        f"{sum(s.excess for _, s in peek) / max(n, 1):+7.3f}"
    )
    rng = random.Random(22)
    for fpr_boards in (3, 4):
        pvals = []
        for k in range(len(SKILLS)):
            pool = [s for r, s in honest if r["skill"] == k]
            rng.shuffle(pool)
            for i in range(0, len(pool) - fpr_boards + 1, fpr_boards):
                pvals.append(field_test(pool[i : i + fpr_boards])[1])
        m = len(pvals)
        line = ", ".join(
            f"p<{a}: {sum(p < a for p in pvals)} ({sum(p < a for p in pvals) / m:.4f})"
            for a in (0.001, 0.01, 0.05, 0.1)
        )
        print(f"\nfalse positives, {m} honest pairs of {fpr_boards} boards: {line}")
    print("\npower (flagged at alpha 0.001 after Holm over 14 pairs) and AUC, resampled:")
    print("boards  f     power  AUC")
    honest_by_skill = defaultdict(list)
    for r, s in honest:
        honest_by_skill[r["skill"]].append(s)
    peek_by_skill = defaultdict(list)
    for r, s in peek:
        peek_by_skill[r["skill"]].append(s)
    reps = 300
    for nb in (28, 56, 100, 200):
        hp = []
        for _ in range(reps):
            k = rng.randrange(len(SKILLS))
            hp.append(field_test([rng.choice(honest_by_skill[k]) for _ in range(nb)])[1])
        for f in (1.0, 0.5, 0.25):
            cp = []
            for _ in range(reps):
                k = rng.choice([k for k in peek_by_skill])
                cp.append(
                    field_test(
                        [
                            rng.choice(peek_by_skill[k])
                            if rng.random() < f
                            else rng.choice(honest_by_skill[k])
                            for _ in range(nb)
                        ]
                    )[1]
                )
            power = sum(PAIRS_PER_EVENT * p <= 0.001 for p in cp) / reps
            print(f"{nb:6d}  {f:<4}  {power:5.2f}  {auc(cp, hp):.3f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
