"""Matchpoints, Neuberg, adjusted scores, percentages and places."""

from __future__ import annotations

from fractions import Fraction

import pytest
from hypothesis import given
from hypothesis import strategies as st

from audit.tournament.matchpoints import (
    Adjustment,
    BoardResult,
    matchpoints,
    most_results,
    neuberg,
    score_board,
)
from audit.tournament.standings import percentage, places, round_half_up

F = Fraction


def test_matchpoints_by_hand() -> None:
    assert matchpoints([58, -32, 19]) == [2, 0, 1]
    assert matchpoints([-62, -62, 62]) == [F(1, 2), F(1, 2), 2]
    assert matchpoints([5]) == [0]


@given(st.lists(st.integers(-200, 200), min_size=1, max_size=30))
def test_matchpoints_of_any_results_sum_to_top_times_n_over_two(scores: list[int]) -> None:
    n = len(scores)
    top = n - 1
    assert sum(matchpoints(scores)) == F(top * n, 2)
    # and on the board, NS and EW together share top x n
    pairs = score_board([BoardResult(s) for s in scores], n)
    assert sum(ns for ns, _ in pairs) == F(top * n, 2)
    assert all(ns + ew == top for ns, ew in pairs)


@given(st.lists(st.integers(-50, 50), min_size=1, max_size=12), st.randoms())
def test_matchpoints_do_not_depend_on_the_order(scores: list[int], rnd: object) -> None:
    shuffled = list(scores)
    rnd.shuffle(shuffled)  # type: ignore[attr-defined]
    by_score = dict(zip(scores, matchpoints(scores), strict=True))
    assert dict(zip(shuffled, matchpoints(shuffled), strict=True)) == by_score


def test_neuberg_by_hand() -> None:
    # two results on a board where the most is three: top 1 becomes top 2
    assert neuberg(F(1), 2, 3) == F(7, 4)
    assert neuberg(F(0), 2, 3) == F(1, 4)
    # a lone result gets half the top
    assert neuberg(F(0), 1, 5) == 2
    assert neuberg(F(3, 2), 3, 3) == F(3, 2)
    with pytest.raises(ValueError):
        neuberg(F(0), 4, 3)


def test_adjusted_scores_are_not_results() -> None:
    results = [
        BoardResult(58),
        BoardResult(19),
        BoardResult(None, (Adjustment.AVERAGE_PLUS, Adjustment.AVERAGE_MINUS)),
    ]
    assert most_results([results]) == 2
    # most = 3 elsewhere in the event: two results scaled by Neuberg to a top of 2
    got = score_board(results, 3)
    assert got == [(F(7, 4), F(1, 4)), (F(1, 4), F(7, 4)), (F(6, 5), F(4, 5))]
    with pytest.raises(ValueError):
        BoardResult(3, (Adjustment.AVERAGE, Adjustment.AVERAGE))


def test_a_fouled_board_is_scored_version_by_version() -> None:
    results = [BoardResult(10, version=0), BoardResult(20, version=0), BoardResult(-5, version=1)]
    got = score_board(results, 3)
    assert got[0] == (neuberg(F(0), 2, 3), 2 - neuberg(F(0), 2, 3))
    assert got[2] == (F(1), F(1))  # alone in its version: half the top


def test_places_share_ties_and_order_within_by_name() -> None:
    scores = {"a": F(60), "b": F(55), "c": F(55), "d": F(40), "e": F(55)}
    got = places(scores, {k: k for k in scores})
    assert got == [("a", "1"), ("b", "2-4"), ("c", "2-4"), ("e", "2-4"), ("d", "5")]


def test_percentage_and_rounding() -> None:
    assert percentage(F(23, 4), F(12)) == F(575, 12)
    assert round_half_up(F(575, 12)) == 47.92
    assert round_half_up(F(1, 8)) == 0.13  # half up, not to even
    assert round_half_up(F(-1, 8)) == -0.13
    assert percentage(F(0), F(0)) == 50
