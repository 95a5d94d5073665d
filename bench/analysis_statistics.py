"""Other statistics for the test for play that knows too much, against the one the
analysis uses, on the simulation's saved boards (docs/analysis.md, "Statistics tried").

Each statistic is a sum over a pair's open decisions of (outcome - what the field's curve
expects), over its standard error; each curve is fitted to an event field (13 other pairs
of the same number of boards, of random skills) and the pairs are resampled by skill, as
in ``bench/analysis_calibration.py``. Printed for each: the honest pairs' z (mean, standard
deviation, share above the 5% point), the peeking pairs' z by skill, the power at
alpha = 0.001 after Holm over 14 pairs, and the AUC.

- ``found``: the analysis's test (best in the true deal; :mod:`audit.analysis.knowledge`).
- ``found/g``, ``found(1-p)``: the same outcome weighted (a peek closes a share of the gap
  to certainty; a peek matters less where the view nearly settles the card).
- ``cost``: the tricks the card gives away in the true deal, against a quasi-Poisson curve
  in the card's mean cost over the draws (``cost_view``), ``favourite`` and the rate.
- ``found+cost``: the two z's summed, over the root of their honest variance.
- ``seen-left``, ``seen-right``: with ``--seen-draws`` rows, whether the card is what a
  player who saw that opponent's hand would play, against a logistic curve in whether that
  card is also the view's favourite, what the view says it gives away, its ``p_view`` and
  the rate (the rate's slope the spot's own where the two favourites differ).
- ``found|seen``: the three tests the analysis runs with ``--seen-draws``, the smallest
  p-value times three (flagged at z 4.07 instead of 3.8).
- ``gain-left``, ``gain-right``: with rows that hold the seen-hand gains
  (:attr:`audit.analysis.judge.Decision.seen_gain`), what seeing that opponent's hand adds
  to the value of the card played, less its mean over the legal moves (so a peek at that
  hand shows as a positive sum), against a linear curve in the rate; ``gain-l|r`` the
  larger of the two (Bonferroni's 2: the test does not know which hand was seen),
  ``found|gain`` with the best-card test too (3); ``ngain-*`` the same with each gain
  replaced by its normal score among the honest decisions' gains of the same trick. A
  pair's z for these divides by the root of the larger of the field's variance and its
  own. The false positives over disjoint honest pairs of ``--fpr-boards`` boards are
  printed first; ``--gain-clip C`` clips each decision's gain to [-C, C] tricks.

    python bench/analysis_statistics.py FILE.jsonl [--boards 28,100] [--reps 150]
        [--from-board N] [--to-board M] [--gain-clip C] [--fpr-boards 4]
"""

from __future__ import annotations

import argparse
import bisect
import json
import math
import random
import statistics
import sys
from collections import defaultdict
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from audit.analysis.knowledge import _seen_features, _solve  # noqa: E402

Row = dict[str, Any]
Features = Callable[[Row], Sequence[float]]
Z_HOLM = 3.805  # one-sided z of 0.001 / 14
Z_05 = 1.645
Z_HOLM3 = 4.066  # the largest of three z's, Bonferroni: 0.001 / 14 / 3
GAIN_CLIP = [math.inf]
"""``--gain-clip``: each decision's seen-hand gain is clipped to this (tricks)."""
Z_HOLM2 = 3.971  # the larger of two: 0.001 / 14 / 2
Z_052 = 1.960  # and 0.05 / 2
Z_053 = 2.128  # and 0.05 / 3


def logit(p: float, edge: float = 0.02) -> float:
    p = min(1 - edge, max(edge, p))
    return math.log(p / (1 - p))


def sigmoid(x: float) -> float:
    return 1 / (1 + math.exp(-x)) if x > -700 else 0.0


GAUSS = "gauss"
"""A curve's kind besides logistic (False) and quasi-Poisson (True): linear, with a
constant variance (the seen-hand gains, which may be negative)."""


class Curve:
    """A GLM fitted to the field by Newton's method with a light ridge: logistic
    (``poisson=False``), quasi-Poisson with a log link, or linear (:data:`GAUSS`)."""

    def __init__(
        self, rows: list[tuple[Row, float]], features: Features, poisson: bool | str
    ) -> None:
        self.gauss = poisson == GAUSS
        self.features, self.poisson = features, poisson is True
        xs = [(list(features(r)), y) for r, y in rows]
        k = len(xs[0][0])
        b = [0.0] * k
        hess: list[list[float]] = []
        for _ in range(40):
            grad = [-b[i] for i in range(k)]
            hess = [[1.0 if i == j else 0.0 for j in range(k)] for i in range(k)]
            for x, y in xs:
                mu, w = self._mean(b, x)
                for i in range(k):
                    grad[i] += (y - mu) * x[i]
                    for j in range(k):
                        hess[i][j] += w * x[i] * x[j]
            step = _solve(hess, grad) or [0.0] * k
            b = [b[i] + step[i] for i in range(k)]
            if sum(map(abs, step)) < 1e-9:
                break
        self.coef = b
        cols = [_solve(hess, [float(i == j) for i in range(k)]) or [0.0] * k for j in range(k)]
        self.cov = [[cols[j][i] for j in range(k)] for i in range(k)]
        self.phi = 1.0
        if self.poisson:
            resid = [(y - self._mean(b, x)[0]) ** 2 / max(self._mean(b, x)[0], 1e-6) for x, y in xs]
            self.phi = sum(resid) / max(1, len(resid) - k)
        if self.gauss:
            resid = [(y - self._mean(b, x)[0]) ** 2 for x, y in xs]
            self.phi = sum(resid) / max(1, len(resid) - k)
            self.cov = [[c * self.phi for c in row] for row in self.cov]

    def _mean(self, b: list[float], x: Sequence[float]) -> tuple[float, float]:
        eta = sum(bi * xi for bi, xi in zip(b, x, strict=True))
        if self.gauss:
            return eta, 1.0
        if self.poisson:
            mu = math.exp(min(eta, 30.0))
            return mu, mu
        mu = sigmoid(eta)
        return mu, mu * (1 - mu)

    def z(self, own: list[tuple[Row, float]], weight: Callable[[Row, float], float]) -> float:
        """The pair's z: more best cards (or fewer tricks given away) is positive."""
        k = len(self.coef)
        num = var = 0.0
        grad = [0.0] * k
        for r, y in own:
            x = self.features(r)
            mu, w = self._mean(self.coef, x)
            wt = weight(r, mu)
            num += wt * ((mu - y) if self.poisson else (y - mu))
            var += wt * wt * (self.phi * mu if self.poisson else self.phi if self.gauss else w)
            for i in range(k):
                grad[i] += wt * w * x[i]
        if self.gauss:
            # the larger of the field's variance and the pair's own: a pair whose
            # decisions spread wider than the field's (more tricks at stake) is not
            # flagged for it, and in a short series a few large gains do not decide
            own_var = sum((y - self._mean(self.coef, self.features(r))[0]) ** 2 for r, y in own)
            var = max(var, own_var)
        var += sum(grad[i] * self.cov[i][j] * grad[j] for i in range(k) for j in range(k))
        return num / math.sqrt(var) if var > 0 else 0.0


def _row(t: list[Any]) -> Row:
    r: Row = {"p": t[0], "found": float(bool(t[1])), "fav": float(bool(t[2]))}
    if len(t) >= 6:
        r.update(cost=float(t[3]), cost_view=t[4], index=t[5])
    for name, seen in zip(("left", "right"), t[6:8], strict=False):
        r[f"{name}_hit"], r[f"{name}_same"] = float(seen[0]), float(seen[1])
        r[f"{name}_p"], r[f"{name}_gap"] = seen[2], seen[3]
    for name, gain in zip(("left", "right"), t[8:10], strict=False):
        # what seeing that hand adds to the card played, against the legal moves' mean
        r[f"{name}_gain"] = max(-GAIN_CLIP[0], min(GAIN_CLIP[0], gain[0] - gain[1]))
    return r


def _seen(side: str) -> Features:
    """The analysis's own features (:func:`audit.analysis.knowledge.fit_seen`)."""
    return lambda r: _seen_features(
        (
            bool(r[f"{side}_hit"]),
            bool(r[f"{side}_same"]),
            r[f"{side}_p"],
            r[f"{side}_gap"],
            r["rate"],
        )
    )


STATISTICS: dict[str, tuple[str, Features, bool, Callable[[Row, float], float]]] = {
    "found": (
        "found",
        lambda r: (1.0, logit(r["p"]), r["fav"], r["rate"] - 0.5),
        False,
        lambda r, g: 1.0,
    ),
    "found/g": (
        "found",
        lambda r: (1.0, logit(r["p"]), r["fav"], r["rate"] - 0.5),
        False,
        lambda r, g: 1 / g,
    ),
    "found(1-p)": (
        "found",
        lambda r: (1.0, logit(r["p"]), r["fav"], r["rate"] - 0.5),
        False,
        lambda r, g: 1 - r["p"],
    ),
    "cost": (
        "cost",
        lambda r: (1.0, math.log(r["cost_view"] + 0.05), r["fav"], r["rate"] - 0.5),
        True,
        lambda r, g: 1.0,
    ),
    "seen-left": ("left_hit", _seen("left"), False, lambda r, g: 1.0),
    "seen-right": ("right_hit", _seen("right"), False, lambda r, g: 1.0),
    "gain-left": ("left_gain", lambda r: (1.0, r["rate"] - 0.5), GAUSS, lambda r, g: 1.0),
    "gain-right": ("right_gain", lambda r: (1.0, r["rate"] - 0.5), GAUSS, lambda r, g: 1.0),
    "ngain-left": ("left_ngain", lambda r: (1.0, r["rate"] - 0.5), GAUSS, lambda r, g: 1.0),
    "ngain-right": ("right_ngain", lambda r: (1.0, r["rate"] - 0.5), GAUSS, lambda r, g: 1.0),
}


def _normal_scores(honest: list[Row], rows: list[Row]) -> None:
    """Each gain as its normal score among the honest decisions' gains of the same trick
    (the quantile of the standard normal at its rank): a sum of a few heavy-tailed gains
    is far from normal, a sum of normal scores is not; the trick, because the gains shrink
    as the hand goes on, and a pair whose decisions come early would otherwise spread
    wider than the field."""
    norm = statistics.NormalDist()
    for side in ("left", "right"):
        refs: dict[int, list[float]] = defaultdict(list)
        for r in honest:
            if f"{side}_gain" in r:
                refs[r["index"] // 4].append(r[f"{side}_gain"])
        for ref in refs.values():
            ref.sort()
        for r in rows:
            ref = refs.get(r["index"] // 4, [])
            if f"{side}_gain" in r and ref:
                x = r[f"{side}_gain"]
                below = bisect.bisect_left(ref, x)
                equal = bisect.bisect_right(ref, x) - below
                r[f"{side}_ngain"] = norm.inv_cdf((below + 0.5 * equal + 0.5) / (len(ref) + 1))


def _tail(z: float) -> float:
    return 0.5 * math.erfc(z / math.sqrt(2))


COMBINED: dict[str, tuple[tuple[str, ...], float, float]] = {
    "found|seen": (("found", "seen-left", "seen-right"), Z_HOLM3, Z_053),
    "found|gain": (("found", "gain-left", "gain-right"), Z_HOLM3, Z_053),
    "gain-l|r": (("gain-left", "gain-right"), Z_HOLM2, Z_052),
    "ngain-l|r": (("ngain-left", "ngain-right"), Z_HOLM2, Z_052),
    "found|ngain": (("found", "ngain-left", "ngain-right"), Z_HOLM3, Z_053),
}
"""Tests of several statistics at once: the largest z (the smallest p) with Bonferroni's
factor, the number of parts; the flag's and the 5% point's z for it."""


def _field(
    honest: dict[int, list[list[Row]]],
    boards: int,
    rng: random.Random,
    tag: Callable[[list[list[Row]]], list[Row]],
) -> list[Row]:
    """An event's field: 13 other pairs of ``boards`` boards, each of one random skill."""
    field: list[Row] = []
    for _ in range(13):
        k = rng.randrange(len(honest))
        field += tag([rng.choice(honest[k]) for _ in range(boards)])
    return field


def _disjoint(
    honest: dict[int, list[list[Row]]],
    rng: random.Random,
    tag: Callable[[list[list[Row]]], list[Row]],
    boards: int,
) -> None:
    """False positives of the tests over disjoint honest pairs of ``boards`` boards (one
    skill a pair, no board in two pairs), each against a field of 13 pairs of 28 boards
    drawn from the honest pool: how many have p below 0.001, 0.01 and 0.05."""
    fields = [_field(honest, 28, rng, tag) for _ in range(12)]
    tests = ("found", "gain-left", "gain-right", "ngain-left", "ngain-right")
    curves = [
        {
            n: Curve([(r, r[STATISTICS[n][0]]) for r in f], STATISTICS[n][1], STATISTICS[n][2])
            for n in tests
        }
        for f in fields
    ]
    pvals: dict[str, list[float]] = defaultdict(list)
    for k in sorted(honest):
        sides = list(honest[k])
        rng.shuffle(sides)
        for i in range(0, len(sides) - boards + 1, boards):
            own = tag(sides[i : i + boards])
            c = rng.choice(curves)
            ps = {}
            for n in tests:
                y, _f, _kind, weight = STATISTICS[n]
                ps[n] = _tail(c[n].z([(r, r[y]) for r in own], weight))
            pvals["found"].append(ps["found"])
            for both, (parts, _flag, _five) in COMBINED.items():
                if all(n in ps for n in parts):
                    pvals[both].append(min(1.0, len(parts) * min(ps[n] for n in parts)))
    pairs = len(pvals["found"])
    print(f"\nfalse positives: {pairs} disjoint honest pairs of {boards} boards")
    for n, ps in pvals.items():
        cells = "  ".join(f"p<{a}: {sum(p < a for p in ps):4d}" for a in (0.001, 0.01, 0.05))
        print(f"{n:11s} {cells}")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("files", nargs="+")
    ap.add_argument("--boards", default="28,100")
    ap.add_argument("--reps", type=int, default=150)
    ap.add_argument("--from-board", type=int, default=0, help="only boards numbered from N")
    ap.add_argument("--to-board", type=int, default=10**9, help="only boards numbered below N")
    ap.add_argument("--gain-clip", type=float, default=math.inf, help="tricks (default: none)")
    ap.add_argument("--fpr-boards", type=int, default=4, help="boards of a disjoint honest pair")
    args = ap.parse_args()
    GAIN_CLIP[0] = args.gain_clip
    honest: dict[int, list[list[Row]]] = defaultdict(list)
    peek: dict[int, list[list[Row]]] = defaultdict(list)
    for name in args.files:
        for line in Path(name).read_text().splitlines():
            r = json.loads(line)
            if not args.from_board <= r["board"] < args.to_board:
                continue
            (peek if r["peeking"] else honest)[r["skill"]].append([_row(t) for t in r["tests"]])
    rows = [row for pool in (honest, peek) for sides in pool.values() for s in sides for row in s]
    _normal_scores([r for sides in honest.values() for s in sides for r in s], rows)
    names = [n for n, s in STATISTICS.items() if all(s[0] in row for row in rows)]
    skills = sorted(k for k in peek if honest[k])
    print(
        f"{sum(map(len, honest.values()))} honest pair-boards, "
        f"{sum(map(len, peek.values()))} peeking ({', '.join(f'skill {k}: {len(peek[k])}' for k in skills)})"
    )
    rng = random.Random(3)

    def tag(sides: list[list[Row]]) -> list[Row]:
        flat = [r for s in sides for r in s]
        rate = sum(r["fav"] for r in flat) / len(flat) if flat else 0.5
        return [{**r, "rate": rate} for r in flat]

    def chunks(pool: list[list[Row]]) -> list[Row]:
        return [r for i in range(0, len(pool), 28) for r in tag(pool[i : i + 28])]

    print("\neach honest skill's decisions against the curve fitted to the other skills' (z)")
    print("statistic   " + "  ".join(f"skill {k}" for k in sorted(honest)))
    for n in names:
        y, features, poisson, weight = STATISTICS[n]
        cells = []
        for k in sorted(honest):
            rest = [r for j in honest if j != k for r in chunks(honest[j])]
            curve = Curve([(r, r[y]) for r in rest], features, poisson)
            cells.append(curve.z([(r, r[y]) for r in chunks(honest[k])], weight))
        print(f"{n:11s} " + "  ".join(f"{z:+7.2f}" for z in cells), flush=True)

    if "gain-left" in names:
        _disjoint(honest, rng, tag, args.fpr_boards)

    for nb in (int(b) for b in args.boards.split(",")):
        fields = [_field(honest, nb, rng, tag) for _ in range(6)]
        curves = {
            n: [
                Curve([(r, r[STATISTICS[n][0]]) for r in f], STATISTICS[n][1], STATISTICS[n][2])
                for f in fields
            ]
            for n in names
        }
        zh: dict[str, list[float]] = defaultdict(list)
        zp: dict[str, dict[int, list[float]]] = defaultdict(lambda: defaultdict(list))
        honest_skill: list[int] = []  # the skill of each honest pair, in zh's order
        for _ in range(args.reps):
            k = rng.choice(skills)
            honest_skill.append(k)
            own_h = tag([rng.choice(honest[k]) for _ in range(nb)])
            own_p = tag([rng.choice(peek[k]) for _ in range(nb)])
            c = rng.randrange(len(fields))
            for n in names:
                y, _f, _poisson, weight = STATISTICS[n]
                curve = curves[n][c]
                zh[n].append(curve.z([(r, r[y]) for r in own_h], weight))
                zp[n][k].append(curve.z([(r, r[y]) for r in own_p], weight))
        if "cost" in names:
            rho = statistics.correlation(zh["found"], zh["cost"])
            scale = math.sqrt(2 + 2 * rho)
            zh["found+cost"] = [
                (a + b) / scale for a, b in zip(zh["found"], zh["cost"], strict=True)
            ]
            for k in skills:
                pair = zip(zp["found"][k], zp["cost"][k], strict=True)
                zp["found+cost"][k] = [(a + b) / scale for a, b in pair]
        for both, (parts, _flag, _five) in COMBINED.items():
            # found|seen is the analysis with --seen-draws; the others, the gains
            if all(n in names for n in parts):
                zh[both] = [max(t) for t in zip(*(zh[n] for n in parts), strict=True)]
                for k in skills:
                    zp[both][k] = [max(t) for t in zip(*(zp[n][k] for n in parts), strict=True)]
        print(f"\n{nb} boards a pair, {args.reps} pairs each way")
        if "cost" in names:
            print(f"(found and cost: honest correlation {rho:.2f})")
        print("statistic    honest z    p<.05 | peeking z   power   AUC  | by skill: mean z, power")
        above: dict[str, list[float]] = {}
        for n in zh:
            h = zh[n]
            p = [z for k in skills for z in zp[n][k]]
            auc = sum((a > b) + 0.5 * (a == b) for a in p for b in h) / (len(p) * len(h))
            flag, five = COMBINED[n][1:] if n in COMBINED else (Z_HOLM, Z_05)
            by = "  ".join(
                f"{k}: {statistics.mean(zp[n][k]):4.1f} {sum(z >= flag for z in zp[n][k]) / len(zp[n][k]):.2f}"
                for k in skills
            )
            print(
                f"{n:11s} {statistics.mean(h):+.2f}±{statistics.stdev(h):.2f} "
                f"{sum(z > five for z in h) / len(h):5.3f} | "
                f"{statistics.mean(p):4.2f}±{statistics.stdev(p):.2f} "
                f"{sum(z >= flag for z in p) / len(p):5.2f}  {auc:.3f} | {by}",
                flush=True,
            )
            above[n] = []
            for k in skills:
                mine = [z for z, s in zip(h, honest_skill, strict=True) if s == k]
                above[n].append(sum(z > five for z in mine) / max(1, len(mine)))
        print(
            "honest pairs above the 5% point, by skill: " + ", ".join(f"skill {k}" for k in skills)
        )
        for n, shares in above.items():
            print(f"{n:11s} " + "  ".join(f"{x:.3f}" for x in shares))
    return 0


if __name__ == "__main__":
    sys.exit(main())
