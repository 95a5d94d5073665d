"""The score of a duplicate board at a table, against values worked out by hand."""

from __future__ import annotations

from audit.rules.cards import Side
from audit.rules.contract import Contract
from audit.rules.scoring import HandFacts
from audit.tournament.boardscore import BoardScore, board_score

NS, EW = Side.NS, Side.EW


def facts(
    contract: Contract,
    unit: int,
    tricks: tuple[int, int],
    honours: tuple[int, int] = (0, 0),
    revokes: tuple[tuple[Side, str], ...] = (),
) -> HandFacts:
    return HandFacts(contract, unit, tricks, honours, revokes)


def test_tricks_and_honours_have_no_games_and_no_cap_for_the_side_with_the_odd_trick() -> None:
    # 8 tricks at 4 = 8; four honours 4 x 4 = 16: 24 (the rubber scorer would make games)
    assert board_score(facts(Contract.H, 4, (8, 5), (4, 1))) == BoardScore(24, 0)
    assert board_score(facts(Contract.H, 4, (8, 5), (4, 1))).result == 24


def test_honours_without_the_odd_trick_stop_at_nine() -> None:
    # EW hold five honours at 4 (24) but NS took the odd trick: EW stop at 9
    assert board_score(facts(Contract.S, 4, (7, 6), (0, 5))) == BoardScore(4, 9)


def test_no_honours_when_the_other_side_went_out_by_cards() -> None:
    # NS 10 by tricks (9 tricks at... 3 over at 4 = 12): EW's honours do not count
    assert board_score(facts(Contract.S, 4, (9, 4), (1, 4))) == BoardScore(12, 0)
    # 9 by tricks is not out: EW's four honours (2 x... 4 units at 2 = 8) stop at 9
    assert board_score(facts(Contract.C, 3, (9, 4), (1, 4))) == BoardScore(9, 9)


def test_revoke_tricks_penalty_moves_three_tricks_and_caps_the_revoking_side() -> None:
    # NS took 12, revoked: 9 after the penalty, 3 over at 8 = 24, capped at 9; no slam
    assert board_score(facts(Contract.GRAND, 8, (12, 1), revokes=((NS, "tricks"),))) == BoardScore(
        9, 0
    )
    # EW revoked: NS 10 + 3 = 13 tricks: 7 x 2 = 14; slam counted on actual tricks (10): none
    assert board_score(facts(Contract.H, 2, (10, 3), revokes=((EW, "tricks"),))) == BoardScore(
        14, 0
    )


def test_deduct_and_add_both_take_three_units_off_the_revoker_below_zero() -> None:
    for option in ("deduct", "add"):
        # EW revoked; NS 8 tricks at 3 = 6; EW 0 - 9
        got = board_score(facts(Contract.C, 3, (8, 5), revokes=((EW, option),)))
        assert got == BoardScore(6, -9) and got.result == 15


def test_slams_unmultiplied_and_in_nullo_to_the_side_that_scores() -> None:
    assert board_score(facts(Contract.GRAND, 8, (13, 0))) == BoardScore(56 + 6, 0)
    assert board_score(facts(Contract.S, 1, (12, 1))) == BoardScore(6 + 4, 0)
    # nullo: NS took 13 tricks, EW score them and the slam
    assert board_score(facts(Contract.NULLO, 8, (13, 0))) == BoardScore(0, 56 + 6)
    # never for a side that revoked (deduct: tricks stay 13)
    assert board_score(facts(Contract.GRAND, 8, (13, 0), revokes=((NS, "deduct"),))) == BoardScore(
        9 - 24, 0
    )


def test_documented_examples() -> None:
    """The worked examples of docs/tournaments.md, "A board's score, in five steps"."""
    examples = [
        (facts(Contract.S, 2, (13, 0), (4, 1)), BoardScore(28, 0)),  # slam
        (facts(Contract.H, 2, (9, 4), (3, 2), ((NS, "deduct"),)), BoardScore(3, 0)),
        (facts(Contract.D, 3, (8, 5), (2, 3), ((NS, "tricks"),)), BoardScore(0, 12)),
        (facts(Contract.C, 3, (3, 10), (4, 1)), BoardScore(0, 12)),  # out by tricks
        (facts(Contract.C, 2, (3, 10), (4, 1)), BoardScore(8, 8)),  # honours capped
        (facts(Contract.NULLO, 8, (12, 1)), BoardScore(0, 52)),  # nullo little slam
    ]
    for f, want in examples:
        assert board_score(f) == want, f
    assert [board_score(f).result for f, _ in examples] == [28, 3, -12, -12, 0, -52]
