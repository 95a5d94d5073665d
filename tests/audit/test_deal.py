from __future__ import annotations

import pytest

from audit.errors import RulesetError
from audit.rules.cards import Seat
from audit.rules.deal import (
    PATTERN_67,
    PATTERN_445,
    PATTERN_ONE_AT_A_TIME,
    check_pattern,
    deal_from_order,
    deal_positions,
)


def test_445_gives_packets_from_the_dealers_left() -> None:
    pos = deal_positions(PATTERN_445, Seat.N)
    assert pos[:4] == (Seat.E,) * 4
    assert pos[4:8] == (Seat.S,) * 4
    assert pos[12:16] == (Seat.N,) * 4  # the dealer is served last in each round
    assert pos[16:20] == (Seat.E,) * 4
    assert pos[32:37] == (Seat.E,) * 5
    assert pos[-5:] == (Seat.N,) * 5


def test_67_and_one_at_a_time() -> None:
    pos = deal_positions(PATTERN_67, Seat.W)
    assert pos[:6] == (Seat.N,) * 6 and pos[24:31] == (Seat.N,) * 7
    one = deal_positions(PATTERN_ONE_AT_A_TIME, Seat.S)
    assert one[:5] == (Seat.W, Seat.N, Seat.E, Seat.S, Seat.W)


@pytest.mark.parametrize("pattern", [PATTERN_445, PATTERN_67, PATTERN_ONE_AT_A_TIME])
@pytest.mark.parametrize("dealer", list(Seat))
def test_every_seat_gets_thirteen(pattern: tuple[int, ...], dealer: Seat) -> None:
    hands = deal_from_order(list(range(52)), dealer, pattern)
    assert all(len(h) == 13 for h in hands.values())
    assert sorted(c for h in hands.values() for c in h) == list(range(52))


def test_bad_patterns_are_refused() -> None:
    for bad in ([4, 4, 4], [0, 13], [], [6.5, 6.5]):
        with pytest.raises(RulesetError):
            check_pattern(bad)  # type: ignore[arg-type]
    with pytest.raises(ValueError):
        deal_from_order(list(range(51)), Seat.N)
