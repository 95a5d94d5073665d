"""Movements: the Mitchell's invariants for every size, the round robin's pairings."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from audit.tournament.errors import MovementError
from audit.tournament.movement import (
    boards_of_set,
    default_mitchell_rounds,
    max_mitchell_rounds,
    mitchell,
    round_robin,
)


@given(st.integers(1, 16), st.data())
def test_mitchell_no_pair_meets_a_board_set_or_an_opponent_twice(
    tables: int, data: st.DataObject
) -> None:
    rounds = data.draw(st.integers(1, default_mitchell_rounds(tables)))
    movement = mitchell(tables, rounds)
    assert len(movement) == rounds
    ns_sets, ew_sets, meetings = set(), set(), set()
    for r in movement:
        assert sorted(s.table for s in r.sittings) == list(range(1, tables + 1))
        assert sorted(s.ew for s in r.sittings) == list(range(1, tables + 1))
        assert sorted(s.board_set or 0 for s in r.sittings) == list(range(1, tables + 1))
        for s in r.sittings:
            assert s.ns == s.table  # NS stationary
            for seen, key in (
                (ns_sets, (s.ns, s.board_set)),
                (ew_sets, (s.ew, s.board_set)),
                (meetings, (s.ns, s.ew)),
            ):
                assert key not in seen
                seen.add(key)


def test_mitchell_moves_ew_up_and_boards_down_with_the_skip() -> None:
    four = mitchell(4)
    assert len(four) == 3
    # round 1 -> 2: EW up one; after round 2 (= T/2) they skip a table
    assert [s.ew for s in four[0].sittings] == [1, 2, 3, 4]
    assert [s.ew for s in four[1].sittings] == [4, 1, 2, 3]
    assert [s.ew for s in four[2].sittings] == [2, 3, 4, 1]
    assert [s.board_set for s in four[1].sittings] == [2, 3, 4, 1]
    three = mitchell(3)
    assert [s.ew for s in three[2].sittings] == [2, 3, 1]


@given(st.integers(1, 16).map(lambda n: 2 * n))
def test_an_even_mitchell_of_t_rounds_repeats_only_round_one_opponents(tables: int) -> None:
    # The spec allows T rounds; with the skip, round T meets round 1's opponents again
    # on a board set never played, and nothing else repeats.
    movement = mitchell(tables, max_mitchell_rounds(tables))
    assert len(movement) == tables
    first = {(s.ns, s.ew) for s in movement[0].sittings}
    last = {(s.ns, s.ew) for s in movement[-1].sittings}
    assert first == last
    sets = [(s.ew, s.board_set) for r in movement for s in r.sittings]
    assert len(sets) == len(set(sets))
    middle = [(s.ns, s.ew) for r in movement[:-1] for s in r.sittings]
    assert len(middle) == len(set(middle))


def test_mitchell_refuses_impossible_sizes() -> None:
    with pytest.raises(MovementError, match="rounds"):
        mitchell(4, 5)
    assert len(mitchell(4, 4)) == 4
    with pytest.raises(MovementError, match="tables"):
        mitchell(0)
    assert len(mitchell(5)) == 5


def test_board_sets() -> None:
    assert boards_of_set(1, 2) == (1, 2)
    assert boards_of_set(3, 2) == (5, 6)


@given(st.integers(2, 21))
def test_round_robin_every_pair_meets_every_other_exactly_once(pairs: int) -> None:
    movement = round_robin(pairs)
    assert len(movement) == pairs - 1 + pairs % 2
    met: list[tuple[int, int]] = []
    for r in movement:
        playing = [p for s in r.sittings for p in (s.ns, s.ew)]
        byes = [] if r.bye is None else [r.bye]
        assert sorted(playing + byes) == list(range(1, pairs + 1))
        assert (r.bye is None) == (pairs % 2 == 0)
        for s in r.sittings:
            assert s.ns < s.ew  # the lower-numbered pair sits NS
            met.append((s.ns, s.ew))
    assert sorted(met) == [(a, b) for a in range(1, pairs + 1) for b in range(a + 1, pairs + 1)]


def test_round_robin_of_five_has_one_bye_a_round() -> None:
    movement = round_robin(5)
    assert [r.bye for r in movement] == [1, 4, 2, 5, 3]
    assert [(s.ns, s.ew) for s in movement[0].sittings] == [(2, 5), (3, 4)]
