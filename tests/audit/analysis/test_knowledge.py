"""The pair's test: its statistics, its calibration on draws of honest choices, and the
simulation's bots."""

from __future__ import annotations

import itertools
import math
import random

import pytest

from audit.analysis.judge import sample_view
from audit.analysis.knowledge import board_share, field_test
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
    """Choices that find the best card with the chance the draws give (honest, any skill:
    p itself varies with skill) are flagged at about alpha; ones that find it more often
    are not."""
    rng = random.Random(3)

    def pair(boost: float) -> float:
        shares = []
        for _ in range(28):
            own = []
            for _ in range(rng.randrange(0, 4)):
                p = rng.choice([0.2, 0.4, 0.6, 0.8])
                own.append((p, rng.random() < min(1.0, p + boost)))
            field = [(p, rng.random() < p) for p in (rng.random() for _ in range(12))]
            shares.append(board_share(own, field))
        return field_test(shares)[1]

    honest = [pair(0.0) for _ in range(1000)]
    assert 0.03 < sum(p < 0.05 for p in honest) / 1000 < 0.07
    peeking = [pair(0.3) for _ in range(50)]
    assert sum(p < 0.001 for p in peeking) >= 35


def test_the_field_takes_out_what_the_board_gives_everyone() -> None:
    own = [(0.5, False)] * 4
    field = [(0.5, False)] * 12
    assert board_share(own, field).excess == pytest.approx(0.0)
    assert board_share(own, []).excess == pytest.approx(-2.0)


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
