"""The pair's test: its statistics, its calibration on draws of honest choices, and the
simulation's bots."""

from __future__ import annotations

import itertools
import json
import math
import random
from pathlib import Path

import pytest

from audit.analysis.judge import sample_view
from audit.analysis.knowledge import IDENTITY, fit, fit_seen, honest, pair_test, seen_test
from audit.analysis.simulate import SKILLS, play_board, random_board, simulate_board
from audit.analysis.solver import Position
from audit.analysis.stats import holm, poisson_binomial_tail, wilson
from audit.rules.cards import SUIT_MASK, Seat
from audit.rules.contract import Contract


def test_wilson_interval_matches_the_textbook() -> None:
    lo, hi = wilson(81, 100)
    assert (round(lo, 3), round(hi, 3)) == (0.722, 0.875)
    assert wilson(0, 0) == (0.0, 1.0)


def test_poisson_binomial_tail_is_the_sum_over_outcomes() -> None:
    probs = [0.1, 0.5, 0.8, 0.3]
    for k in range(6):
        brute = sum(
            math.prod(p if o else 1 - p for p, o in zip(probs, out, strict=True))
            for out in itertools.product((0, 1), repeat=4)
            if sum(out) >= k
        )
        assert poisson_binomial_tail(probs, k) == pytest.approx(brute)


def test_holm_steps_down() -> None:
    assert holm([0.01, 0.04, 0.03, 0.005]) == pytest.approx([0.03, 0.06, 0.06, 0.02])


def test_honest_choices_give_uniform_p_values_and_a_peeker_small_ones() -> None:
    """Honest players of any skill (skill moves which p they choose, not the chance a
    chosen card is best given its p) find the best card with a chance g(p) below p, as
    the history makes them; the curve fitted to the field takes it out: honest pairs
    are flagged at about alpha, pairs that find the best card more often are not."""
    rng = random.Random(3)

    def truth(p: float) -> float:
        return max(0.0, p - 0.15)

    def choices(n: int, skill: float, boost: float) -> list[tuple[float, bool, bool, float]]:
        rate = 0.8 if skill else 0.3
        out = []
        for _ in range(n):
            p = rng.choice([0.25, 0.5, 0.75, 0.9] if skill else [0.1, 0.3, 0.5, 0.7])
            fav = rng.random() < rate
            found = rng.random() < min(1.0, truth(p) + 0.05 * fav + 0.05 * skill + boost)
            out.append((p, found, fav, rate))
        return out

    field = [c for skill in (0, 1) for c in choices(300, skill, 0.0)]
    curve = fit(field)
    assert curve != IDENTITY and honest((0.75, False, True, 0.8), curve) == pytest.approx(
        0.7, abs=0.08
    )
    pvals = [pair_test(choices(42, i % 2, 0.0), curve)[1] for i in range(1000)]
    assert 0.02 < sum(p < 0.05 for p in pvals) / 1000 < 0.08
    peeking = [pair_test(choices(150, i % 2, 0.3), curve)[1] for i in range(50)]
    assert sum(p < 0.001 for p in peeking) >= 40
    view_only = [pair_test(choices(42, 1, 0.0), IDENTITY)[1] for _ in range(200)]
    assert sum(p < 0.05 for p in view_only) <= 3  # conservative without the curve


def test_the_seen_hand_test_is_calibrated_by_skill_and_finds_a_pair_that_sees_it() -> None:
    """Honest players play what a player who saw a hand would, more often where that card
    is also their view's favourite, and skill works the other way where it is not (a strong
    player keeps to the view's favourite). The curve fitted to a field of two skills takes
    both out: honest pairs of either skill are flagged at about alpha; a pair that plays the
    seen hand's card more often is found."""
    rng = random.Random(4)

    def choices(n: int, skill: int, boost: float) -> list[tuple[bool, bool, float, float, float]]:
        rate = 0.75 if skill else 0.35
        out = []
        for _ in range(n):
            same = rng.random() < 0.65
            gap = 0.0 if same else rng.choice([0.1, 0.3, 0.6, 1.2])
            p = rng.choice([0.4, 0.6, 0.8] if same else [0.2, 0.4, 0.6])
            chance = 0.45 + 0.4 * skill if same else max(0.05, 0.45 - 0.25 * skill - 0.1 * gap)
            out.append((rng.random() < min(1.0, chance + boost), same, p, gap, rate))
        return out

    field = [c for skill in (0, 1) for c in choices(600, skill, 0.0)]
    curve = fit_seen(field)
    assert curve is not None
    for skill in (0, 1):
        pvals = [seen_test(choices(40, skill, 0.0), curve)[1] for _ in range(500)]
        assert 0.015 < sum(p < 0.05 for p in pvals) / 500 < 0.09, skill
    peeking = [seen_test(choices(150, i % 2, 0.25), curve)[1] for i in range(50)]
    assert sum(p < 0.001 for p in peeking) >= 40
    # too small a field: no curve, and no test
    assert fit_seen(field[:10]) is None
    assert seen_test(choices(40, 1, 0.5), None)[1] == 1.0


def test_a_small_field_is_not_fitted() -> None:
    assert fit([(0.5, True, True, 0.5)] * 10) == IDENTITY
    assert honest((0.3, True, False, 0.5), IDENTITY) == 0.3


def test_draws_keep_lengths_voids_and_a_seen_hand() -> None:
    rng = random.Random(5)
    board = random_board(1, rng)
    pos = Position(board.deal, board.contract, 0, 0, Seat.E, ())
    voids = [0, 1 << 0, 0, 0]  # E has shown out of spades
    spades_e = board.deal[Seat.E] & SUIT_MASK[0]
    hands = list(board.deal)
    hands[Seat.W] |= spades_e
    hands[Seat.E] &= ~spades_e
    # give W's longest cards back to E so lengths stay 13
    moved = 0
    for c in range(51, -1, -1):
        if moved == spades_e.bit_count():
            break
        if hands[Seat.W] >> c & 1 and c // 13 != 0:
            hands[Seat.W] &= ~(1 << c)
            hands[Seat.E] |= 1 << c
            moved += 1
    pos = Position((hands[0], hands[1], hands[2], hands[3]), Contract.GRAND, 0, 0, Seat.E, ())
    for _ in range(50):
        dealt = sample_view(pos, Seat.N, voids, rng, seen=frozenset({Seat.W}))
        assert dealt[Seat.N] == pos.hands[Seat.N] and dealt[Seat.W] == pos.hands[Seat.W]
        assert dealt[Seat.E] & SUIT_MASK[0] == 0
        assert [h.bit_count() for h in dealt] == [13] * 4
        assert dealt[Seat.E] | dealt[Seat.S] == pos.hands[Seat.E] | pos.hands[Seat.S]


def test_bots_play_legal_hands_and_the_simulation_reports_every_side() -> None:
    rng = random.Random(9)
    board = random_board(2, rng)
    hand = play_board(board, dict.fromkeys(Seat, SKILLS[0]), rng, from_card=40)
    assert len(hand.moves) == 52 and len({c for c, _ in hand.moves}) == 52
    rows = simulate_board(4, tables=2, from_card=44, samples=3, peeker=True)
    assert [(r.table, r.side, r.peeking) for r in rows] == [
        (0, 0, True),
        (0, 1, False),
        (1, 0, False),
        (1, 1, False),
    ]


RESULTS = Path(__file__).resolve().parents[3] / "bench/results"


@pytest.mark.parametrize(
    "name",
    [
        "analysis_sim_from12.jsonl",  # the cards after the 12th judged (the default)
        "analysis_sim_from8.jsonl",  # after the 8th (FAIRPLAY_ANALYSIS_FROM_CARD=8)
        "analysis_sim.jsonl",  # after the 24th, as the analysis judged before
    ],
)
def test_the_recorded_simulations_honest_pairs_are_flagged_at_most_alpha(name: str) -> None:
    """The boards bench/analysis_sim.py played (bots that play from what they see, four
    skills, 7 tables a board): 1,000 and more honest pairs of 4 boards, each of one skill,
    against curves fitted to event fields of honest pairs; the peeking sides above the
    curve. (bench/analysis_calibration.py measures the power on the same boards.)"""
    rows = [json.loads(line) for line in (RESULTS / name).read_text().splitlines()]
    honest: dict[int, list[list[tuple[float, bool, bool]]]] = {}
    peeking = []
    for r in rows:
        side = [(p, bool(f), bool(fav)) for p, f, fav, *_ in r["tests"]]
        if r["peeking"]:
            peeking.append(side)
        else:
            honest.setdefault(r["skill"], []).append(side)

    def tag(sides: list[list[tuple[float, bool, bool]]]) -> list[tuple[float, bool, bool, float]]:
        flat = [c for s in sides for c in s]
        rate = sum(c[2] for c in flat) / len(flat) if flat else 0.5
        return [(p, f, fav, rate) for p, f, fav in flat]

    rng = random.Random(22)
    curves = []
    for _ in range(4):
        field = []
        for _ in range(13):
            pool = honest[rng.randrange(len(SKILLS))]
            field += tag([rng.choice(pool) for _ in range(28)])
        curves.append(fit(field))
    pvals = []
    for sides in honest.values():
        for i in range(0, len(sides) - 3, 4):
            pvals.append(pair_test(tag(sides[i : i + 4]), rng.choice(curves))[1])
    assert len(pvals) >= 1000
    assert sum(p < 0.001 for p in pvals) <= 4  # 1,000 x 0.001 within its sampling error
    # at 0.05, within the binomial's sampling error (its 99.9% upper bound: 7.0% of 1,078)
    share = sum(p < 0.05 for p in pvals) / len(pvals)
    assert share < 0.05 + 3.09 * math.sqrt(0.05 * 0.95 / len(pvals))
    z, _p, _expected = pair_test(tag(peeking), curves[0])
    assert z > 2
