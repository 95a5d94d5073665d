"""The scorer against the rules digest, rule by rule, and the book's worked example."""

from __future__ import annotations

import pytest

from audit.record.codec import load_record
from audit.rules.cards import Side
from audit.rules.contract import Contract
from audit.rules.model import Bonus, GameWon
from audit.rules.ruleset import Ruleset
from audit.rules.scoring import HandFacts, Sheet, score_hand
from audit.rules.sitting import score_record

from .helpers import worked_example

NS, EW = Side.NS, Side.EW


def facts(
    contract: Contract = Contract.H,
    unit: int = 4,
    tricks: tuple[int, int] = (7, 6),
    honours: tuple[int, int] = (0, 0),
    revokes: tuple[tuple[Side, str], ...] = (),
) -> HandFacts:
    return HandFacts(contract=contract, unit=unit, tricks=tricks, honours=honours, revokes=revokes)


# -- the acceptance test ---------------------------------------------------------


def test_the_books_worked_example() -> None:
    scored = score_record(load_record(worked_example()))
    (rubber,) = scored.sheet.rubbers_json()
    assert rubber == {
        "winner": "NS",
        "games": {"NS": 4, "EW": 3},
        "sheet": {"NS": [2, 0, 0, 0, 3, 4, 4, 8, 4], "EW": [0, 2, 4, 4, 0, 0, 0]},
        "totals": {"NS": 25, "EW": 10},
        "value": 15,
    }
    first, second, third = (s.score for s in scored.scores if s is not None)
    assert first.points == (6, 0) and first.games == (GameWon(NS, 2),)
    assert second.points == (0, 2) and [g.value for g in second.games] == [2, 4, 4]
    assert third.points == (0, 0) and [g.value for g in third.games] == [3, 4, 4]
    assert third.bonuses == (Bonus(NS, "rubber", 8), Bonus(NS, "little_slam", 4))


def test_worked_example_hand_one_in_isolation() -> None:
    # Z calls cayenne (hearts, x4), makes 2 by cards; A-B's three honours do not count.
    r = score_hand((8, 6), (0, 0), facts(Contract.H, 4, (8, 5), honours=(2, 3)))
    assert r.score.points == (6, 0) and r.score.games == (GameWon(NS, 2),)


# -- tricks -----------------------------------------------------------------------


def test_tricks_over_six_times_the_unit() -> None:
    r = score_hand((0, 0), (0, 0), facts(Contract.D, 2, (9, 4)))
    assert r.score.points == (6, 0) and not r.score.games


def test_nullo_tricks_are_scored_by_the_adversaries() -> None:
    r = score_hand((0, 0), (0, 0), facts(Contract.NULLO, 8, (4, 9)))
    assert r.score.points == (4, 0)  # 3 x 8 = 24: two games for N-S and 4 carried
    assert r.score.games == (GameWon(NS, 4), GameWon(NS, 4))


# -- honours ----------------------------------------------------------------------


@pytest.mark.parametrize(("held", "points"), [(3, 2), (4, 4), (5, 6)])
def test_honours_scale(held: int, points: int) -> None:
    r = score_hand((0, 0), (0, 0), facts(Contract.S, 1, (7, 6), honours=(held, 5 - held)))
    assert r.score.points == (1 + points, 0)


@pytest.mark.parametrize("contract", [Contract.GRAND, Contract.NULLO])
def test_honours_never_score_without_a_trump(contract: Contract) -> None:
    r = score_hand((0, 0), (0, 0), facts(contract, 8, (6, 7), honours=(5, 0)))
    assert r.score.points[0] == (8 if contract == Contract.NULLO else 0)


def test_no_honours_for_a_side_whose_adversaries_went_out_by_cards() -> None:
    r = score_hand((8, 0), (0, 0), facts(Contract.C, 1, (8, 5), honours=(0, 4)))
    assert r.score.games == (GameWon(NS, 4),) and r.score.points == (0, 0)


def test_honours_stop_at_nine_without_the_odd_trick() -> None:
    # N-S make the odd trick (2); E-W's four honours (8) would take them from 5 to 13
    r = score_hand((0, 5), (0, 0), facts(Contract.C, 2, (7, 6), honours=(0, 4)))
    assert r.score.points == (2, 9) and not r.score.games


def test_honours_win_a_game_with_the_odd_trick() -> None:
    r = score_hand((0, 5), (0, 0), facts(Contract.C, 2, (6, 7), honours=(1, 4)))
    assert r.score.games == (GameWon(EW, 4),) and r.score.points == (0, 5)


# -- revokes ----------------------------------------------------------------------


def test_revoke_penalty_tricks_moves_three_tricks() -> None:
    r = score_hand((0, 0), (0, 0), facts(Contract.H, 1, (9, 4), revokes=((NS, "tricks"),)))
    assert r.adjusted_tricks == (6, 7) and r.score.points == (0, 1)


def test_revoke_penalty_tricks_never_takes_more_than_the_revoker_won() -> None:
    r = score_hand((0, 0), (0, 0), facts(Contract.H, 1, (2, 11), revokes=((NS, "tricks"),)))
    assert r.adjusted_tricks == (0, 13)
    # slams are counted on the tricks actually taken: 11 is not a little slam
    assert not r.score.bonuses


def test_revoke_in_nullo_gives_the_revoker_three_tricks_from_the_adversaries() -> None:
    r = score_hand((0, 0), (0, 0), facts(Contract.NULLO, 8, (8, 5), revokes=((EW, "tricks"),)))
    assert r.adjusted_tricks == (5, 8)


def test_revoke_in_nullo_scores_for_the_non_revoking_side() -> None:
    r = score_hand((0, 0), (0, 0), facts(Contract.NULLO, 8, (8, 5), revokes=((EW, "tricks"),)))
    assert r.score.games == (GameWon(NS, 4),) and r.score.points == (6, 0)


def test_revoke_penalty_deduct_not_below_zero() -> None:
    r = score_hand((5, 0), (0, 0), facts(Contract.S, 2, (6, 7), revokes=((NS, "deduct"),)))
    assert r.score.points == (0, 2)


def test_revoke_penalty_add_goes_to_the_adversaries_first() -> None:
    r = score_hand((0, 8), (0, 0), facts(Contract.S, 1, (7, 6), revokes=((NS, "add"),)))
    # penalty first: E-W 8 + 3 = 11, a game while N-S stood at 0; then N-S's trick
    assert r.score.games == (GameWon(EW, 4),) and r.score.points == (1, 1)


def test_a_revoking_side_cannot_win_a_game_and_stops_at_nine() -> None:
    r = score_hand((5, 0), (0, 0), facts(Contract.H, 4, (13, 0), revokes=((NS, "deduct"),)))
    assert r.score.points == (9, 0) and not r.score.games
    assert not r.score.bonuses  # no slam for revokers


def test_both_sides_revoking_neither_can_win_a_game() -> None:
    r = score_hand(
        (8, 8), (0, 0), facts(Contract.GRAND, 8, (10, 3), revokes=((NS, "add"), (EW, "add")))
    )
    assert not r.score.games and r.score.points == (9, 9)


# -- slams ------------------------------------------------------------------------


def test_slam_and_little_slam_on_the_sheet_not_the_marker() -> None:
    r = score_hand((0, 0), (0, 0), facts(Contract.S, 1, (13, 0)))
    assert r.score.points == (7, 0) and r.score.bonuses == (Bonus(NS, "slam", 6),)
    r = score_hand((0, 0), (0, 0), facts(Contract.S, 1, (1, 12)))
    assert r.score.bonuses == (Bonus(EW, "little_slam", 4),)


def test_nullo_slam_belongs_to_the_side_that_scores_the_tricks() -> None:
    r = score_hand((0, 0), (0, 0), facts(Contract.NULLO, 8, (13, 0)))
    assert Bonus(EW, "slam", 6) in r.score.bonuses


# -- games and rubbers ------------------------------------------------------------


@pytest.mark.parametrize(
    ("loser", "value"), [(0, 4), (1, 3), (3, 3), (4, 2), (6, 2), (7, 1), (8, 1), (9, 1)]
)
def test_game_values_from_the_losers_points(loser: int, value: int) -> None:
    r = score_hand((9, loser), (0, 0), facts(Contract.S, 1, (7, 6)))
    assert r.score.games == (GameWon(NS, value),) and r.score.points == (0, 0)


def test_seven_is_double_when_the_ruleset_says_so() -> None:
    r = score_hand((9, 7), (0, 0), facts(Contract.S, 1, (7, 6)), Ruleset(seven_is="double"))
    assert r.score.games == (GameWon(NS, 2),)


def test_points_over_ten_carry_and_several_games_in_one_hand() -> None:
    r = score_hand((0, 6), (0, 0), facts(Contract.GRAND, 8, (10, 3)))
    assert [g.value for g in r.score.games] == [2, 4, 4] and r.score.points == (2, 0)


def test_the_rubber_ends_at_four_games_plus_eight_and_drops_the_marker() -> None:
    r = score_hand((0, 5), (3, 2), facts(Contract.GRAND, 8, (9, 4)))
    assert r.rubber_winner is NS and r.score.points == (0, 0) and r.games_after == (0, 0)
    assert r.score.games == (GameWon(NS, 2),) and r.score.bonuses == (Bonus(NS, "rubber", 8),)


def test_several_rubbers_in_one_sitting() -> None:
    sheet = Sheet()
    for _ in range(2):
        for _ in range(2):
            sheet.score(facts(Contract.GRAND, 8, (10, 3)))  # 32: three games, 2 carried
    rubbers = sheet.rubbers_json()
    assert [r["winner"] for r in rubbers] == ["NS", "NS"]
    assert all(r["value"] == 4 + 4 + 4 + 4 + 8 for r in rubbers)


def test_start_mid_rubber() -> None:
    sheet = Sheet(points=(8, 6), games=(3, 0), prior_sheet=([4, 4, 3], [0, 0, 0]))
    r = sheet.score(facts(Contract.S, 1, (8, 5)))
    assert r.rubber_winner is NS
    (rubber,) = sheet.rubbers_json()
    assert rubber["sheet"]["NS"] == [4, 4, 3, 2, 8] and rubber["value"] == 21
