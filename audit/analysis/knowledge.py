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
``logit g = a + b logit p + c favourite + d (rate - 1/2)`` fitted to every other pair's
decisions of the event, where ``rate`` is the share of the player's open decisions in
which he played the draws' favourite: his skill as his view shows it. A pair's z is ``sum(found - g)`` over the root of ``sum g (1 - g)`` plus the fit's
own variance; its p-value the normal upper tail.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

__all__ = [
    "IDENTITY",
    "K",
    "MIN_FIELD",
    "Calibration",
    "Choice",
    "SeenChoice",
    "fit",
    "fit_seen",
    "honest",
    "pair_test",
    "seen_test",
]

Choice = tuple[float, bool, bool, float]
"""``(p, found, favourite, rate)`` of one decision the view left open; ``rate`` is the
share of its player's open decisions where he played the draws' favourite (his skill, as
his view shows it)."""

K = 4
"""Parameters of the curve."""

MIN_FIELD = 40
"""Below this many field decisions the curve is not fitted: ``g = p``."""

_EDGE = 0.02
_RIDGE = 1.0
"""A light ridge toward ``g = p`` keeps a small or separable field's fit finite."""


@dataclass(frozen=True, slots=True)
class Calibration:
    """``logit g = a + b logit p + c favourite + d (rate - 1/2)``, and the inverse of
    the fit's information (the covariance of ``(a, b, c, d)``, row by row)."""

    coef: tuple[float, ...] = (0.0, 1.0, 0.0, 0.0)
    cov: tuple[tuple[float, ...], ...] = ((0.0,) * K,) * K


IDENTITY = Calibration()


def _logit(p: float) -> float:
    p = min(1 - _EDGE, max(_EDGE, p))
    return math.log(p / (1 - p))


def _sigmoid(x: float) -> float:
    return 1 / (1 + math.exp(-x)) if x > -700 else 0.0


def _features(c: Choice) -> tuple[float, ...]:
    return (1.0, _logit(c[0]), 1.0 if c[2] else 0.0, c[3] - 0.5)


def _solve(m: list[list[float]], v: list[float]) -> list[float] | None:
    """``m x = v`` by Gauss-Jordan elimination with partial pivoting."""
    n = len(v)
    a = [row[:] + [v[i]] for i, row in enumerate(m)]
    for col in range(n):
        piv = max(range(col, n), key=lambda r: abs(a[r][col]))
        if abs(a[piv][col]) < 1e-12:
            return None
        a[col], a[piv] = a[piv], a[col]
        for r in range(n):
            if r != col:
                f = a[r][col] / a[col][col]
                for k in range(col, n + 1):
                    a[r][k] -= f * a[col][k]
    return [a[i][n] / a[i][i] for i in range(n)]


def fit(field: Sequence[Choice]) -> Calibration:
    """The curve fitted to ``field`` by maximum likelihood (Newton's method)."""
    if len(field) < MIN_FIELD:
        return IDENTITY
    return _fit([(_features(c), 1.0 if c[1] else 0.0) for c in field], IDENTITY.coef) or IDENTITY


def _fit(
    rows: Sequence[tuple[tuple[float, ...], float]], prior: tuple[float, ...]
) -> Calibration | None:
    """A logistic curve fitted to ``rows`` (features, outcome), with a light ridge toward
    ``prior``; None where the fit does not converge to a finite curve."""
    K = len(prior)
    coef = list(prior)
    hess: list[list[float]] = []
    for _ in range(30):
        grad = [-_RIDGE * (coef[i] - prior[i]) for i in range(K)]
        hess = [[_RIDGE if i == j else 0.0 for j in range(K)] for i in range(K)]
        for x, y in rows:
            q = _sigmoid(sum(coef[i] * x[i] for i in range(K)))
            w = q * (1 - q)
            for i in range(K):
                grad[i] += (y - q) * x[i]
                for j in range(K):
                    hess[i][j] += w * x[i] * x[j]
        step = _solve(hess, grad)
        if step is None:
            return None
        coef = [coef[i] + step[i] for i in range(K)]
        if sum(map(abs, step)) < 1e-9:
            break
    cols = []
    for j in range(K):
        col = _solve(hess, [1.0 if i == j else 0.0 for i in range(K)])
        if col is None:
            return None
        cols.append(col)
    cov = tuple(tuple(cols[j][i] for j in range(K)) for i in range(K))
    return Calibration(tuple(coef), cov)


def honest(choice: Choice, curve: Calibration) -> float:
    """``g``: the chance an honest player finds the best card in this spot, by the field."""
    if curve == IDENTITY:
        return choice[0]
    x = _features(choice)
    return _sigmoid(sum(curve.coef[i] * x[i] for i in range(K)))


def pair_test(own: Sequence[Choice], curve: Calibration) -> tuple[float, float, float]:
    """The pair's z, its one-sided p-value (large z: more best cards than honest) and
    the best cards an honest pair would find in its spots."""
    if curve == IDENTITY:
        expected = [c[0] for c in own]
        variance = math.fsum(g * (1 - g) for g in expected)
        return _tail(sum(c[1] for c in own), expected, variance)
    return _test([(_features(c), 1.0 if c[1] else 0.0) for c in own], curve)


def _test(
    rows: Sequence[tuple[tuple[float, ...], float]], curve: Calibration
) -> tuple[float, float, float]:
    """z, its upper tail and the expected count of ``rows`` (features, outcome) under
    ``curve``, the fit's own variance included (the delta method)."""
    K = len(curve.coef)
    expected = [_sigmoid(sum(curve.coef[i] * x[i] for i in range(K))) for x, _ in rows]
    variance = math.fsum(g * (1 - g) for g in expected)
    grad = [0.0] * K
    for (x, _), g in zip(rows, expected, strict=True):
        for i in range(K):
            grad[i] += g * (1 - g) * x[i]
    variance += sum(grad[i] * curve.cov[i][j] * grad[j] for i in range(K) for j in range(K))
    return _tail(sum(y for _, y in rows), expected, variance)


def _tail(
    observed: float, expected: Sequence[float], variance: float
) -> tuple[float, float, float]:
    if variance <= 0:
        return 0.0, 1.0, math.fsum(expected)
    z = (observed - math.fsum(expected)) / math.sqrt(variance)
    return z, 0.5 * math.erfc(z / math.sqrt(2)), math.fsum(expected)


# ----------------------------------------------------------------- the seen hand (opt-in)

SeenChoice = tuple[bool, bool, float, float, float]
"""``(hit, same, p, gap, rate)`` of one open decision for one opponent's hand (see
:attr:`audit.analysis.judge.Decision.seen`): whether the card played is what a player who
saw that hand would play; whether that card is also the view's favourite; its ``p_view``;
what the view says it gives away (tricks); the player's favourite rate."""

SEEN_PRIOR = (0.0,) * 7


def _seen_features(c: SeenChoice) -> tuple[float, ...]:
    # where the seen favourite is not the view's, a strong honest player keeps to the view's
    # favourite: the rate's slope is the spot's own there (docs/analysis.md)
    same, gap, skill = 1.0 if c[1] else 0.0, min(c[3], 2.0), c[4] - 0.5
    return (1.0, same, gap, _logit(c[2]), skill, same * skill, gap * skill)


def fit_seen(field: Sequence[SeenChoice]) -> Calibration | None:
    """The field's curve of the chance that an honest player plays what a player who saw
    the hand would (None below :data:`MIN_FIELD` decisions: no test)."""
    if len(field) < MIN_FIELD:
        return None
    return _fit([(_seen_features(c), 1.0 if c[0] else 0.0) for c in field], SEEN_PRIOR)


def seen_test(own: Sequence[SeenChoice], curve: Calibration | None) -> tuple[float, float, float]:
    """The pair's z, its one-sided p-value (large z: it played what the seen hand said more
    often than honest players do) and the count honest players would reach."""
    if curve is None or not own:
        return 0.0, 1.0, 0.0
    return _test([(_seen_features(c), 1.0 if c[0] else 0.0) for c in own], curve)
