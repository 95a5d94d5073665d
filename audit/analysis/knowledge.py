"""The test for play that knows too much: a pair's choices, where the view left the best
card open, against a model of honest play calibrated on the field (docs/analysis.md).

For each such decision the judge gives ``p``, the share of the ``samples + 1`` deals
(the true one among them) in which the card played is double-dummy best; ``favourite``,
whether the card has the best average over the draws alone (what a strong player who
sees only his view plays); and ``found``, whether it is best in the true deal. Were the
true deal one more draw from the view, ``P(found) = p`` for any honest player, strong or
weak: he chooses from what he sees, and the true deal is as likely as any draw. It is not
quite one draw: the cards played before carry information the draws ignore (a player
who could have won the trick cheaply and did not), and honest players find the best card
less often than ``p`` says, by an amount that depends on the kind of card chosen. So the
chance is measured on the field: a logistic curve
``logit g = a + b logit p + c favourite`` fitted to every other pair's decisions of the
event. A pair's z is ``sum(found - g)`` over the root of ``sum g (1 - g)`` plus the fit's
own variance; its p-value the normal upper tail.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

__all__ = ["IDENTITY", "MIN_FIELD", "Calibration", "Choice", "fit", "honest", "pair_test"]

Choice = tuple[float, bool, bool]
"""``(p, found, favourite)`` of one decision the view left open."""

MIN_FIELD = 40
"""Below this many field decisions the curve is not fitted: ``g = p``."""

_EDGE = 0.02
_RIDGE = 1.0
"""A light ridge toward ``g = p`` keeps a small or separable field's fit finite."""


@dataclass(frozen=True, slots=True)
class Calibration:
    """``logit g = a + b logit p + c favourite``, and the inverse of the fit's
    information (the covariance of ``(a, b, c)``, row by row)."""

    coef: tuple[float, float, float] = (0.0, 1.0, 0.0)
    cov: tuple[tuple[float, ...], ...] = ((0.0, 0.0, 0.0),) * 3


IDENTITY = Calibration()


def _logit(p: float) -> float:
    p = min(1 - _EDGE, max(_EDGE, p))
    return math.log(p / (1 - p))


def _sigmoid(x: float) -> float:
    return 1 / (1 + math.exp(-x)) if x > -700 else 0.0


def _features(c: Choice) -> tuple[float, float, float]:
    return (1.0, _logit(c[0]), 1.0 if c[2] else 0.0)


def _solve3(m: list[list[float]], v: list[float]) -> list[float] | None:
    """``m x = v`` by Gaussian elimination with partial pivoting (3 by 3)."""
    a = [row[:] + [v[i]] for i, row in enumerate(m)]
    for col in range(3):
        piv = max(range(col, 3), key=lambda r: abs(a[r][col]))
        if abs(a[piv][col]) < 1e-12:
            return None
        a[col], a[piv] = a[piv], a[col]
        for r in range(3):
            if r != col:
                f = a[r][col] / a[col][col]
                for k in range(col, 4):
                    a[r][k] -= f * a[col][k]
    return [a[i][3] / a[i][i] for i in range(3)]


def fit(field: Sequence[Choice]) -> Calibration:
    """The curve fitted to ``field`` by maximum likelihood (Newton's method)."""
    if len(field) < MIN_FIELD:
        return IDENTITY
    prior = (0.0, 1.0, 0.0)
    coef = list(prior)
    rows = [(_features(c), 1.0 if c[1] else 0.0) for c in field]
    hess: list[list[float]] = []
    for _ in range(30):
        grad = [-_RIDGE * (coef[i] - prior[i]) for i in range(3)]
        hess = [[_RIDGE if i == j else 0.0 for j in range(3)] for i in range(3)]
        for x, y in rows:
            q = _sigmoid(coef[0] * x[0] + coef[1] * x[1] + coef[2] * x[2])
            w = q * (1 - q)
            for i in range(3):
                grad[i] += (y - q) * x[i]
                for j in range(3):
                    hess[i][j] += w * x[i] * x[j]
        step = _solve3(hess, grad)
        if step is None:
            return IDENTITY
        coef = [coef[i] + step[i] for i in range(3)]
        if sum(map(abs, step)) < 1e-9:
            break
    cols = []
    for j in range(3):
        col = _solve3(hess, [1.0 if i == j else 0.0 for i in range(3)])
        if col is None:
            return IDENTITY
        cols.append(col)
    cov = tuple(tuple(cols[j][i] for j in range(3)) for i in range(3))
    return Calibration((coef[0], coef[1], coef[2]), cov)


def honest(choice: Choice, curve: Calibration) -> float:
    """``g``: the chance an honest player finds the best card in this spot, by the field."""
    if curve == IDENTITY:
        return choice[0]
    x = _features(choice)
    return _sigmoid(curve.coef[0] * x[0] + curve.coef[1] * x[1] + curve.coef[2] * x[2])


def pair_test(own: Sequence[Choice], curve: Calibration) -> tuple[float, float, float]:
    """The pair's z, its one-sided p-value (large z: more best cards than honest) and
    the best cards an honest pair would find in its spots."""
    expected = [honest(c, curve) for c in own]
    variance = math.fsum(g * (1 - g) for g in expected)
    grad = [0.0, 0.0, 0.0]
    for c, g in zip(own, expected, strict=True):
        x = _features(c)
        for i in range(3):
            grad[i] += g * (1 - g) * x[i]
    variance += sum(grad[i] * curve.cov[i][j] * grad[j] for i in range(3) for j in range(3))
    if variance <= 0:
        return 0.0, 1.0, math.fsum(expected)
    z = (sum(c[1] for c in own) - math.fsum(expected)) / math.sqrt(variance)
    return z, 0.5 * math.erfc(z / math.sqrt(2)), math.fsum(expected)
