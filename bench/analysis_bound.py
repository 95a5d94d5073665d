"""What a test that knew the simulation's bots could do against its peekers: the power of
the likelihood ratio test of "honest of this skill" against "peeking of this skill"
(docs/analysis.md, "What the information allows").

A peeking pair of a given skill plays simulated boards (``audit.analysis.simulate``: its
draws keep its left-hand opponent's hand, from the ``--from-card``-th card on). At each of
its decisions with a choice, the chance of each legal card is estimated under both
hypotheses, the bot of that skill that sees only its view (honest) and the same bot that
also sees the left-hand hand (peeking): a pool of ``--pool`` deals drawn from each view is
solved once, and the bot's choice (the mean of ``draws`` deals taken from the pool, plus
its noise, the best) repeated ``--reps`` times. The log of the ratio of the two chances of
the card played is the decision's evidence; summed over a pair's decisions it is the
Neyman-Pearson statistic (the opponents' cards are chosen alike under both hypotheses, so
they cancel), the most powerful test of one against the other at any level.

The chances are estimates, and a ratio of two noisy estimates finds differences that are
not there. So the ratio is taken from one pair of pools and its distribution under each
hypothesis from a second pair drawn apart (cross-fitting): that is the power of a test
that could be run with the bots' models in hand, a little below the most powerful one's.
The plug-in figure (ratio and distribution from the same pools) is printed beside it, to
show the bias. The distribution under the honest bot is taken at the peeking pair's
states (an honest pair of the same skill reaches nearly the same ones). From a board's
mean and variance under each hypothesis, by the normal approximation of a sum over
boards: the power at alpha = 0.001 after Holm over 14 pairs (the smallest p of a 7-table
Mitchell) at 28, 56, 100 and 200 boards, and the boards needed for 90%.

The test knows each pair's skill and the bots' exact models; the analysis's test knows
neither and must hold its level for honest pairs of every skill at once. So this is not
what the analysis can reach, but whether the boards hold the information at all. The
simulated boards are trump and grand only, as in ``bench/analysis_sim.py``.

    python bench/analysis_bound.py [--boards 40] [--start 20000] [--jobs N]
        [--from-card 12] [--pool 60] [--reps 2000] [--floor 0.01]
"""

from __future__ import annotations

import argparse
import math
import os
import random
import statistics
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from audit.analysis.judge import Table, sample_view  # noqa: E402
from audit.analysis.simulate import SKILLS, Bot, play_board, random_board  # noqa: E402
from audit.analysis.solver import Position, solve_position  # noqa: E402
from audit.rules.cards import Seat  # noqa: E402
from audit.rules.contract import Contract  # noqa: E402

Z_HOLM = 3.805  # one-sided z of 0.001 / 14
FLOOR = 0.01
"""A chance estimated below this is taken as this (a card never chosen in ``reps``
repetitions of one pool may be chosen with another): it bounds each decision's evidence by
log(1 / FLOOR) and keeps a pool's accident from deciding a pair (``--floor``)."""


def _chances(
    values: list[list[float]], bot: Bot, reps: int, floor: float, rng: random.Random
) -> list[float]:
    """How often the bot chooses each move, its draws taken from the pool's rows."""
    moves = len(values[0])
    counts = [0] * moves
    for _ in range(reps):
        picks = rng.choices(values, k=bot.draws)
        best, best_m = -math.inf, 0
        for m in range(moves):
            v = sum(row[m] for row in picks) / bot.draws
            if bot.noise:
                v += rng.gauss(0.0, bot.noise)
            if v > best:  # the first of equal values, as max() in the bot
                best, best_m = v, m
        counts[best_m] += 1
    return [max(c / reps, floor) for c in counts]


Sums = list[float]


def board_evidence(
    args: tuple[int, int, int, int, int, float],
) -> tuple[int, int, Sums, Sums, int]:
    """One board played by a peeking N-S pair of skill ``skill``: its decisions' summed
    evidence (mean and variance under the peeking bot, then under the honest bot),
    cross-fitted and plug-in, and the number of decisions."""
    seed, skill, from_card, pool, reps, floor = args
    rng = random.Random(f"bound:{seed}:{skill}")
    board = random_board(seed, rng)
    bot = SKILLS[skill]
    other = SKILLS[rng.randrange(len(SKILLS))]
    bots = {s: (bot if s.side == 0 else other) for s in Seat}
    hand = play_board(board, bots, rng, from_card=from_card, peeking=frozenset({Seat.N, Seat.S}))
    kind = board.contract
    counted = board.leader.side.other
    maximiser = counted ^ 1 if kind == Contract.NULLO else counted
    table = Table(board.deal, kind, board.leader)
    # the evidence's mean and variance under the peeking bot, then under the honest bot:
    # the ratio taken from one pair of pools and its distribution from a second, drawn
    # apart (sums[0]: cross-fitted, the power of a test that could be run), and from the
    # same pools (sums[1]: the plug-in figure, biased up by the pools' own noise)
    sums = [[0.0] * 4, [0.0] * 4]
    decisions = 0
    for index, move in enumerate(hand.moves):
        seat = table.to_play
        pos = table.position()
        legal = pos.legal_moves()
        if index >= from_card and seat.side == 0 and len(legal) > 1:
            sign = 1 if seat.side == maximiser else -1
            chances = []
            for seen in (frozenset(), frozenset({seat.left})) * 2:
                rows = []
                for _ in range(pool):
                    dealt = sample_view(pos, seat, table.voids, rng, seen=seen)
                    vals = solve_position(
                        Position(dealt, pos.contract, pos.counted, pos.won, pos.leader, pos.trick)
                    )
                    rows.append([sign * vals[m] for m in legal])
                chances.append(_chances(rows, bot, reps, floor, rng))
            honest, peek, honest2, peek2 = chances
            llr = [math.log(p / h) for p, h in zip(peek, honest, strict=True)]
            for k, pair in enumerate(((peek2, honest2), (peek, honest))):
                for j, probs in enumerate(pair):
                    total = sum(probs)
                    mean = sum(p * x for p, x in zip(probs, llr, strict=True)) / total
                    var = sum(p * (x - mean) ** 2 for p, x in zip(probs, llr, strict=True)) / total
                    sums[k][2 * j] += mean
                    sums[k][2 * j + 1] += var
            decisions += 1
        table.play(move)
    return seed, skill, sums[0], sums[1], decisions


def _power(mp: float, vp: float, mh: float, vh: float, n: int) -> float:
    cut = n * mh + Z_HOLM * math.sqrt(n * vh)
    z = (cut - n * mp) / math.sqrt(n * vp)
    return 0.5 * math.erfc(z / math.sqrt(2))


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--boards", type=int, default=40)
    ap.add_argument("--start", type=int, default=20000)
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    ap.add_argument("--from-card", type=int, default=12)
    ap.add_argument("--pool", type=int, default=60)
    ap.add_argument("--reps", type=int, default=2000)
    ap.add_argument("--floor", type=float, default=FLOOR)
    args = ap.parse_args()
    work = [
        (seed, skill, args.from_card, args.pool, args.reps, args.floor)
        for seed in range(args.start, args.start + args.boards)
        for skill in range(len(SKILLS))
    ]
    t0 = time.perf_counter()
    per_skill: dict[int, list[tuple[Sums, Sums, int]]] = {k: [] for k in range(len(SKILLS))}
    with ProcessPoolExecutor(args.jobs) as pool:
        for done, (_seed, skill, crossed, plugin, n) in enumerate(
            pool.map(board_evidence, work), start=1
        ):
            per_skill[skill].append((crossed, plugin, n))
            if done % 20 == 0 or done == len(work):
                print(
                    f"  {done}/{len(work)} boards played and weighed, "
                    f"{time.perf_counter() - t0:.0f} s",
                    file=sys.stderr,
                    flush=True,
                )
    print(
        f"{args.boards} boards a skill from the {args.from_card}th card, pool {args.pool}, "
        f"{args.reps} repetitions a decision, floor {args.floor} ({time.perf_counter() - t0:.0f} s)"
    )
    print(
        "skill (draws, noise) | decisions a board | evidence a board, peeking / honest "
        "(mean ± sd) | power at 28 / 56 / 100 / 200 boards | boards for 90% "
        "| plug-in: evidence a board, power at 100 boards"
    )
    for skill, rows in per_skill.items():
        cols = []
        for which in (0, 1):
            sums = [r[which] for r in rows]
            # a board's evidence under each hypothesis: the mean of the boards' means, and
            # the variance within a board plus that between the boards' means
            mp = statistics.fmean(x[0] for x in sums)
            mh = statistics.fmean(x[2] for x in sums)
            vp = statistics.fmean(x[1] for x in sums) + statistics.pvariance([x[0] for x in sums])
            vh = statistics.fmean(x[3] for x in sums) + statistics.pvariance([x[2] for x in sums])
            cols.append((mp, vp, mh, vh))
        mp, vp, mh, vh = cols[0]
        powers = [_power(mp, vp, mh, vh, n) for n in (28, 56, 100, 200)]
        need = next((n for n in range(1, 20001) if _power(mp, vp, mh, vh, n) >= 0.9), None)
        qp, qvp, qh, qvh = cols[1]
        bot = SKILLS[skill]
        print(
            f"{bot.draws}, {bot.noise} | {statistics.fmean(r[2] for r in rows):.1f} | "
            f"{mp:+.3f} ± {math.sqrt(vp):.3f} / {mh:+.3f} ± {math.sqrt(vh):.3f} | "
            + " / ".join(f"{p:.2f}" for p in powers)
            + f" | {need if need else '> 20000'}"
            + f" | {qp:+.3f} / {qh:+.3f}, {_power(qp, qvp, qh, qvh, 100):.2f}"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
