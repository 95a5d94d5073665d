"""The test for play that knows too much: a pair's choices, where the view left the best
card open, against a model of honest play calibrated on the field (docs/analysis.md).

For each such decision the judge gives ``p``, the share of the ``samples + 1`` deals
(the true one among them) in which the card played is double-dummy best, and ``found``,
whether it is best in the true deal. Were the true deal one more draw from the view,
``P(found) = p`` for any honest player, strong or weak: he chooses from what he sees,
and the true deal is as likely as any draw. It is not quite one draw: the cards played
before carry information the draws ignore (a player who could have won the trick
cheaply and did not), and honest players find the best card less often than ``p`` says
(about 0.15 less in the simulation). That shortfall is a property of the view and its
history, met by everyone in the same spot, so it is measured on the field: a logistic
curve ``P(found) = g(p)`` fitted to every other pair's decisions of the event (two
parameters, ``logit g = a + b logit p``). A pair's z is ``sum(found - g(p))`` over the
root of ``sum g(p)(1 - g(p))``; its p-value the normal upper tail.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

__all__ = ["IDENTITY", "MIN_FIELD", "Calibration", "Choice", "fit", "honest", "pair_test"]

Choice = tuple[float, bool]
"""``(p, found)`` of one decision the view left open."""


@dataclass(frozen=True, slots=True)
class Calibration:
    """``logit g(p) = a + b logit p``, and the covariance of ``(a, b)`` (the fit's own
    uncertainty, added to the pair's variance)."""

    a: float = 0.0
    b: float = 1.0
    cov: tuple[float, float, float] = (0.0, 0.0, 0.0)
    """``(var a, cov ab, var b)``."""


IDENTITY = Calibration()

MIN_FIELD = 40
"""Below this many field decisions the curve is not fitted: ``g(p) = p``."""

_EDGE = 0.02


def _logit(p: float) -> float:
    p = min(1 - _EDGE, max(_EDGE, p))
    return math.log(p / (1 - p))


def _sigmoid(x: float) -> float:
    return 1 / (1 + math.exp(-x)) if x > -700 else 0.0


def fit(field: Sequence[Choice]) -> Calibration:
    """The curve fitted by maximum likelihood (Newton's method, a light ridge toward
    ``g(p) = p`` so a small or separable field stays finite)."""
    if len(field) < MIN_FIELD:
        return IDENTITY
    a, b = 0.0, 1.0
    ridge = 1.0
    xs = [(_logit(p), float(f)) for p, f in field]
    haa = hbb = ridge
    hab = 0.0
    for _ in range(25):
        ga = -ridge * a
        gb = -ridge * (b - 1)
        haa = hbb = ridge
        hab = 0.0
        for x, y in xs:
            q = _sigmoid(a + b * x)
            w = q * (1 - q)
            ga += y - q
            gb += (y - q) * x
            haa += w
            hab += w * x
            hbb += w * x * x
        det = haa * hbb - hab * hab
        if det <= 0:
            break
        da = (hbb * ga - hab * gb) / det
        db = (haa * gb - hab * ga) / det
        a, b = a + da, b + db
        if abs(da) + abs(db) < 1e-9:
            break
    det = haa * hbb - hab * hab
    if det <= 0:
        return IDENTITY
    return Calibration(a, b, (hbb / det, -hab / det, haa / det))


def honest(p: float, curve: Calibration) -> float:
    """``g(p)``: the chance an honest player finds the best card, by the field."""
    if curve == IDENTITY:
        return p
    return _sigmoid(curve.a + curve.b * _logit(p))


def pair_test(own: Sequence[Choice], curve: Calibration) -> tuple[float, float, float]:
    """The pair's z, its one-sided p-value (large z: more best cards than honest) and
    the best cards an honest pair would find in its spots."""
    expected = [honest(p, curve) for p, _ in own]
    variance = math.fsum(g * (1 - g) for g in expected)
    da = math.fsum(g * (1 - g) for g in expected)
    db = math.fsum(g * (1 - g) * _logit(p) for g, (p, _) in zip(expected, own, strict=True))
    caa, cab, cbb = curve.cov
    variance += da * da * caa + 2 * da * db * cab + db * db * cbb
    if variance <= 0:
        return 0.0, 1.0, math.fsum(expected)
    z = (sum(f for _, f in own) - math.fsum(expected)) / math.sqrt(variance)
    return z, 0.5 * math.erfc(z / math.sqrt(2)), math.fsum(expected)
