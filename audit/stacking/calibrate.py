"""Build the detector's tables: advance weights and null distributions.

Run ``python -m audit.stacking.calibrate [--samples N] [--seed S]`` to regenerate
``audit/stacking/tables_data.py`` (a generated module rather than a data file, so an
installed wheel carries it without package-data settings). Everything is simulated
from an injected seed, so the file is reproducible.

1. **Advance weights**, per packet pattern and number of riffles ``k`` (0..7): the
   frequencies of advances 0..3 between neighbouring cards of the reference after
   ``k`` GSR riffles and a cut of a gathered pack (``audit.stacking.simulate``),
   as log ratios to the thorough-shuffle law (12/51, 13/51, 13/51, 13/51); and of
   each pair of consecutive advances, against its exact thorough-shuffle law
   (:func:`null_pairs`). The test is an even mixture of two alternatives: the Markov
   chain of the advances learnt after two riffles (pair weights minus the single
   weights; ``test_weights`` holds the latter negated, so its score is ``sum pairs +
   sum test_weights``) and single advances with the average of the one- and
   two-riffle weights (``plain_weights``), which a pack only cut or riffled once
   fits far better. The chain's score is lowered by ``chain_offset`` (how far its
   null tail at 10**-3 lies above the single advances') so that each half reaches
   the tail alike; the single weights for each ``k`` name the most likely number of
   riffles in the evidence.
2. **Null tail of the hands statistic**, per pattern: ``N`` uniformly random deals
   (a random assignment of 13 cards to each hand; the statistic's law does not depend
   on the cards or the dealer). Stored as the statistic's value at tail probabilities
   ``10**(-j/25)``, down to the depth ``N`` supports.
   The same with the direction of the piles given by the caller, and for the
   *oriented* statistic (``collected``: card order known).
3. **Null lower tail of the order statistic** (the soft minimum of ``W`` over trick
   orientations and both directions, :func:`audit.stacking.order.two_way_soft_min`),
   from ``N`` uniformly random packs, stored negated as an upper tail like the others;
   and the same with the direction given.
"""

from __future__ import annotations

import argparse
import json
import math
import random
import time
from pathlib import Path
from typing import Any

from audit.rules.cards import Seat
from audit.rules.deal import PATTERNS, deal_from_order
from audit.stacking.hands import (
    advance_score,
    mixed,
    oriented_score,
    relative_seats,
    two_way_score,
)
from audit.stacking.order import soft_min_descents, two_way_soft_min
from audit.stacking.simulate import cut, gathered_pack, random_tricks, riffle
from audit.stacking.tables import TEST_RIFFLES

__all__ = [
    "FIXED_BLOCKS",
    "GRID_STEPS_PER_DECADE",
    "MAX_RIFFLES",
    "NULL_ADVANCE",
    "TABLES_PATH",
    "advance_weights",
    "build",
    "chain_offset",
    "main",
    "null_hands_sample",
    "null_pairs",
    "null_order_sample",
    "render",
    "tail_grid",
]

TABLES_PATH = Path(__file__).with_name("tables_data.py")
NULL_ADVANCE = (12 / 51, 13 / 51, 13 / 51, 13 / 51)
GRID_STEPS_PER_DECADE = 25
MAX_RIFFLES = 7
FIXED_BLOCKS: tuple[tuple[int, ...], ...] = tuple(tuple(range(4 * i, 4 * i + 4)) for i in range(13))


def null_pairs() -> list[list[float]]:
    """``P(a, b)``: two consecutive advances of a thoroughly shuffled deal (exact).

    Three consecutive cards of the reference land in hands ``x, y, z``, drawn without
    replacement from thirteen of each; the advances are ``y - x`` and ``z - y``.
    """
    out = [[0.0] * 4 for _ in range(4)]
    for x in range(4):
        for y in range(4):
            for z in range(4):
                ways = 13 * (13 - (y == x)) * (13 - (z == x) - (z == y))
                out[(y - x) & 3][(z - y) & 3] += ways / (52 * 51 * 50)
    return out


def advance_weights(
    pattern: tuple[int, ...], riffles: int, packs: int, rng: random.Random
) -> tuple[list[float], list[list[float]]]:
    """Log ratios to the null after ``riffles`` riffles and a cut: of each advance, and
    of each pair of consecutive advances (``a`` then ``b``)."""
    counts = [1.0, 1.0, 1.0, 1.0]  # one pseudo-count each: no advance is impossible
    pair_counts = [[1.0] * 4 for _ in range(4)]
    for _ in range(packs):
        tricks, gathered = random_tricks(rng)
        pack = gathered_pack(tricks, gathered, rng)
        dealt = cut(riffle(pack, riffles, rng), rng)
        dealer = Seat(rng.randrange(4))
        rel = relative_seats(deal_from_order(dealt, dealer, pattern), dealer)
        steps = [(rel[pack[(i + 1) % 52]] - rel[pack[i]]) & 3 for i in range(52)]
        before = steps[51]
        for a in steps:
            counts[a] += 1
            pair_counts[before][a] += 1
            before = a
    total = sum(counts)
    pair_total = sum(map(sum, pair_counts))
    null = null_pairs()
    return (
        [math.log(c / total / p) for c, p in zip(counts, NULL_ADVANCE, strict=True)],
        [
            [math.log(c / pair_total / p) for c, p in zip(row, prow, strict=True)]
            for row, prow in zip(pair_counts, null, strict=True)
        ],
    )


def tail_grid(values: list[float]) -> list[float]:
    """Values ``t_j`` with ``P(S >= t_j) = 10**(-j/25)``, from a null sample."""
    ordered = sorted(values, reverse=True)
    n = len(ordered)
    grid: list[float] = []
    j = 0
    while True:
        p = 10 ** (-j / GRID_STEPS_PER_DECADE)
        rank = math.ceil(p * n)
        if rank < 30:  # fewer than 30 samples beyond: stop, the rest is extrapolated
            break
        grid.append(ordered[rank - 1])
        j += 1
    return grid


Halves = tuple[float, float]
"""A deal's two halves of the hands statistic: the Markov chain's score and the single
advances' score (:func:`audit.stacking.hands.mixed` combines them)."""


def null_hands_sample(
    weights: list[float],
    pairs: list[list[float]],
    plain: list[float],
    samples: int,
    rng: random.Random,
) -> tuple[list[Halves], list[Halves], list[Halves]]:
    """Both halves of the hands statistic on random deals: direction unknown, direction
    known, order known.

    (Read backwards, the statistic of a random deal has the same law as read forwards,
    so one table serves both known directions.)
    """
    labels = [r for r in range(4) for _ in range(13)]
    cycle = [c for b in FIXED_BLOCKS for c in b]
    two_way: list[Halves] = []
    one_way: list[Halves] = []
    oriented: list[Halves] = []
    for _ in range(samples):
        rng.shuffle(labels)
        two_way.append(
            (
                two_way_score(FIXED_BLOCKS, labels, weights, pairs)[0],
                two_way_score(FIXED_BLOCKS, labels, plain)[0],
            )
        )
        one_way.append(
            (
                advance_score(FIXED_BLOCKS, labels, weights, pairs),
                advance_score(FIXED_BLOCKS, labels, plain),
            )
        )
        oriented.append(
            (oriented_score(cycle, labels, weights, pairs), oriented_score(cycle, labels, plain))
        )
    return two_way, one_way, oriented


def chain_offset(halves: list[Halves], tail: float = 1e-3) -> float:
    """How far the chain's null tail lies above the single advances' at ``tail``: the
    chain's score is lowered by it, so each half reaches that tail alike."""
    rank = math.ceil(tail * len(halves)) - 1
    chain = sorted((m for m, _ in halves), reverse=True)[rank]
    single = sorted((s for _, s in halves), reverse=True)[rank]
    return chain - single


def null_order_sample(samples: int, rng: random.Random) -> tuple[list[float], list[float]]:
    """Minus the soft minimum of ``W`` on random packs (large = structured), with the
    direction unknown and known."""
    pos = list(range(52))
    two_way: list[float] = []
    one_way: list[float] = []
    for _ in range(samples):
        rng.shuffle(pos)
        two_way.append(-two_way_soft_min(FIXED_BLOCKS, pos)[0])
        one_way.append(-soft_min_descents(FIXED_BLOCKS, pos))
    return two_way, one_way


def build(samples: int, seed: int, weight_packs: int = 20000) -> dict[str, Any]:
    rng = random.Random(seed)
    patterns: dict[str, Any] = {}
    for name, pattern in PATTERNS.items():
        learnt = [advance_weights(pattern, k, weight_packs, rng) for k in range(MAX_RIFFLES + 1)]
        by_k = [single for single, _ in learnt]
        # the Markov chain of the advances after TEST_RIFFLES riffles: pairs minus singles
        pair_weights = [[round(w, 6) for w in row] for row in learnt[TEST_RIFFLES][1]]
        test_weights = [round(-w, 6) for w in by_k[TEST_RIFFLES]]
        plain = [round((a + b) / 2, 6) for a, b in zip(by_k[1], by_k[2], strict=True)]
        started = time.perf_counter()
        halves = null_hands_sample(test_weights, pair_weights, plain, samples, rng)
        offset = round(chain_offset(halves[0]), 6)
        two_way, one_way, oriented = (
            [mixed(m - offset, s) for m, s in sample] for sample in halves
        )
        elapsed = time.perf_counter() - started
        print(f"pattern {name}: null of the hands statistics in {elapsed:.0f}s")
        patterns[name] = {
            "pattern": list(pattern),
            "weights_by_riffles": [[round(w, 6) for w in ws] for ws in by_k],
            "test_weights": test_weights,
            "pair_weights": pair_weights,
            "plain_weights": plain,
            "chain_offset": offset,
            "null_tail": [round(t, 6) for t in tail_grid(two_way)],
            "null_tail_one_way": [round(t, 6) for t in tail_grid(one_way)],
            "null_tail_oriented": [round(t, 6) for t in tail_grid(oriented)],
        }
    order_two_way, order_one_way = null_order_sample(samples, rng)
    return {
        "format": "cayenne-stacking-tables/2",
        "generated_by": f"python -m audit.stacking.calibrate --samples {samples} --seed {seed}",
        "samples": samples,
        "grid_steps_per_decade": GRID_STEPS_PER_DECADE,
        "patterns": patterns,
        "order_null_tail": [round(t, 6) for t in tail_grid(order_two_way)],
        "order_null_tail_one_way": [round(t, 6) for t in tail_grid(order_one_way)],
    }


def _literal(value: Any, indent: int, prefix_len: int) -> str:
    """A Python literal laid out as ``ruff format`` lays it out (stable under it)."""
    pad = " " * indent
    inner = " " * (indent + 4)
    if isinstance(value, dict):
        items = [
            f"{inner}{json.dumps(k)}: {_literal(v, indent + 4, indent + 4 + len(json.dumps(k)) + 2)},"
            for k, v in value.items()
        ]
        return "{\n" + "\n".join(items) + "\n" + pad + "}"
    if isinstance(value, list):
        flat = "[" + ", ".join(_literal(v, 0, 0) for v in value) + "]"
        if "\n" not in flat and prefix_len + len(flat) + 1 <= 100:
            return flat
        items = [f"{inner}{_literal(v, indent + 4, indent + 4)}," for v in value]
        return "[\n" + "\n".join(items) + "\n" + pad + "]"
    if isinstance(value, str):
        return json.dumps(value)
    return repr(value)


def render(tables: dict[str, Any]) -> str:
    """The tables as a Python module (a literal; numbers, strings, lists and dicts)."""
    return (
        '"""Null tables of the stacked-deal detector. GENERATED: do not edit.\n\n'
        f"Regenerate with ``{tables['generated_by']}``\n"
        '(see :mod:`audit.stacking.calibrate`)."""\n\n'
        "from typing import Any\n\n"
        '__all__ = ["TABLES"]\n\n'
        f"TABLES: dict[str, Any] = {_literal(tables, 0, 25)}\n"
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--samples", type=int, default=1_000_000)
    parser.add_argument("--seed", type=int, default=20261129)
    parser.add_argument("--output", type=Path, default=TABLES_PATH)
    args = parser.parse_args(argv)
    tables = build(args.samples, args.seed)
    args.output.write_text(render(tables))
    print(f"wrote {args.output}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
