"""The double-dummy solver against DDS (trump and grand) and against exhaustive search
(every contract, nullo included), on random deals at random points of random play.

`make test` runs fixed-seed samples; `pytest -m long tests/audit/analysis` runs the full
1,000 deals of the issue.
"""

from __future__ import annotations

import random
from concurrent.futures import ThreadPoolExecutor

import pytest

from audit.analysis import solve
from audit.analysis.solver import native_available, position, solve_position, solve_python
from audit.errors import FairplayError
from tests.audit.analysis.helpers import STRAINS, dds_values, random_deal, random_play

needs_native = pytest.mark.skipif(not native_available(), reason="the C solver is not built")


def _dds_case(rng: random.Random, lo: int, hi: int) -> tuple[object, ...]:
    deal = random_deal(rng)
    contract = rng.choice(STRAINS)
    leader = rng.choice("NESW")
    played = random_play(rng, deal, contract, leader, rng.randint(lo, hi))
    return deal, contract, leader, played


def _check_dds(n: int, seed: int, lo: int, hi: int) -> None:
    pytest.importorskip("endplay")
    rng = random.Random(seed)
    for _ in range(n):
        deal, contract, leader, played = _dds_case(rng, lo, hi)
        pos = position(deal, contract, leader, played)  # type: ignore[arg-type]
        assert solve_position(pos) == dds_values(pos), (deal, contract, leader, played)


@needs_native
def test_equals_dds_on_trump_and_grand_sample() -> None:
    _check_dds(60, seed=22, lo=16, hi=51)


@needs_native
@pytest.mark.long
def test_equals_dds_on_1000_deals() -> None:
    _check_dds(1000, seed=2022, lo=20, hi=51)


def test_oracle_equals_dds_on_endgames() -> None:
    """The pure-Python oracle itself agrees with DDS where it is fast enough."""
    pytest.importorskip("endplay")
    rng = random.Random(7)
    for _ in range(40):
        deal, contract, leader, played = _dds_case(rng, 36, 51)
        pos = position(deal, contract, leader, played)  # type: ignore[arg-type]
        assert solve_python(pos) == dds_values(pos)


@needs_native
@pytest.mark.parametrize("contract", ["nullo", "grand", "S"])
def test_native_equals_exhaustive_search_on_endgames(contract: str) -> None:
    """Up to four cards a hand, at every point of a trick; nullo aces low and high."""
    rng = random.Random(sum(map(ord, contract)))
    for _ in range(300 if contract == "nullo" else 100):
        deal = random_deal(rng)
        leader = rng.choice("NESW")
        played = random_play(rng, deal, contract, leader, rng.randint(36, 51))
        pos = position(deal, contract, leader, played)
        assert solve_position(pos, native=True) == solve_python(pos), (deal, leader, played)


@needs_native
@pytest.mark.parametrize("contract", ["grand", "S", "H"])
def test_bounds_hold_against_exhaustive_search(contract: str) -> None:
    """The search's bounds without searching (the quick tricks of the leader's side: his
    run, his partner's through an entry, both hands' winners cashed; the sure trump tricks
    of either side) never cross the true value, at trick boundaries of random endgames of
    up to four cards a hand."""
    from audit.native import _ddsolve

    rng = random.Random(sum(map(ord, contract)) + 5)
    decisive = 0
    for _ in range(200):
        deal = random_deal(rng)
        leader = rng.choice("NESW")
        played = random_play(rng, deal, contract, leader, 4 * rng.randint(9, 12))
        pos = position(deal, contract, leader, played)
        trump = pos.contract.trump
        lo, hi = _ddsolve.bounds(
            list(pos.hands), -1 if trump is None else trump, 0, pos.counted, int(pos.leader)
        )
        values = solve_python(pos).values()
        best = max(values) if pos.to_play & 1 == pos.counted else min(values)
        true = best - pos.won
        assert lo <= true <= hi, (deal, contract, leader, played, lo, hi, true)
        remaining = pos.hands[0].bit_count()
        decisive += lo > 0 or hi < remaining
    assert decisive > 50  # the bounds are not vacuous


@needs_native
def test_threads_searching_at_once_get_what_one_gets_alone() -> None:
    """The C search lets go of the GIL (a service's requests go on while it analyses an
    event in a thread): four threads solving at once find every value one thread found
    alone. (Its own lock, which keeps the shared tables to one search at a time, is not
    what this shows: a race on them was not seen to change a value here.)"""
    rng = random.Random(4)
    positions = []
    for _ in range(40):
        deal = random_deal(rng)
        contract, leader = rng.choice([*STRAINS, "nullo"]), rng.choice("NESW")
        played = random_play(rng, deal, contract, leader, rng.randint(20, 40))
        positions.append(position(deal, contract, leader, played))
    alone = [solve_position(p, native=True) for p in positions]
    with ThreadPoolExecutor(max_workers=4) as pool:
        together = list(pool.map(lambda p: solve_position(p, native=True), positions * 4))
    assert together == alone * 4


def test_nullo_ace_is_two_moves_and_contract_side_avoids_tricks() -> None:
    deal = {
        "N": ["AS", "2H", *[r + "D" for r in "23456789TJQ"]],
        "E": ["KS", "3H", *[r + "C" for r in "23456789TJQ"]],
        "S": ["QS", "4H", "KD", "AD", "KC", "AC", *[r + "H" for r in "56789TJ"]],
        "W": ["JS", "QH", "KH", "AH", *[r + "S" for r in "23456789T"]],
    }
    # E leads, so N-S (the dealer's side) play the nullo.
    result = solve(deal, "nullo", "E", [])
    assert set(result) >= {"KS", "3H"}
    # North's ace of spades: low it ducks the king, high it wins; both are moves.
    at_north = solve(deal, "nullo", "E", ["KS", "QS", "JS"])
    assert "AS" in at_north and "AS+high" in at_north
    assert at_north["AS"] <= at_north["AS+high"] - 1


def test_errors_name_the_field() -> None:
    deal = random_deal(random.Random(1))
    with pytest.raises(FairplayError, match=r"played\[0\]"):
        solve(deal, "grand", "N", ["XX"])
    with pytest.raises(FairplayError, match="contract"):
        solve(deal, "notrump", "N", [])
    with pytest.raises(FairplayError, match=r"deal\.E"):
        solve({**deal, "E": deal["E"][:12]}, "grand", "N", [])
    with pytest.raises(FairplayError, match="ace_high|declared high"):
        solve(deal, "grand", "N", [deal["N"][0] + "+high"])


@needs_native
def test_native_and_oracle_agree_on_first_trick_of_a_small_hand() -> None:
    rng = random.Random(3)
    deal = random_deal(rng)
    played = random_play(rng, deal, "H", "W", 32)
    pos = position(deal, "H", "W", played)
    assert solve_position(pos, native=True) == solve_python(pos)
