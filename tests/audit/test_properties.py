"""Invariants over random legal games (hypothesis, bounded)."""

from __future__ import annotations

import random

from hypothesis import given, settings
from hypothesis import strategies as st

from audit.record.codec import dumps, load_record
from audit.record.generate import CALLS, play_hand, random_record
from audit.rules.cards import Seat
from audit.rules.contract import Contract
from audit.rules.deal import PATTERN_67, PATTERN_445, PATTERN_ONE_AT_A_TIME
from audit.rules.replay import replay_hand
from audit.rules.scoring import HandFacts, score_hand
from audit.rules.sitting import score_record

seeds = st.integers(min_value=0, max_value=2**32 - 1)
patterns = st.sampled_from([PATTERN_445, PATTERN_67, PATTERN_ONE_AT_A_TIME])


@settings(max_examples=150, deadline=None)
@given(
    seed=seeds,
    dealer=st.sampled_from(list(Seat)),
    pattern=patterns,
    call=st.sampled_from(CALLS),
    pass_first=st.booleans(),
)
def test_random_legal_hands_conserve_cards_and_replay_identically(
    seed: int, dealer: Seat, pattern: tuple[int, ...], call: str, pass_first: bool
) -> None:
    rng = random.Random(seed)
    state, order = play_hand(
        rng, dealer, pattern=pattern, calls=(["pass", call] if pass_first else [call])
    )
    played = [c for t in state.tricks for c in t.cards]
    assert len(state.tricks) == 13 and all(len(t.cards) == 4 for t in state.tricks)
    assert sorted(played) == list(range(52)) == sorted(order)
    doc = {
        "format": "cayenne-record/1",
        "ruleset": {"deal_pattern": list(pattern)},
        "hands": [state.to_record_hand()],
    }
    out = replay_hand(load_record(doc).hands[0])
    assert out.irregularities == []
    assert out.tricks == state.won
    assert out.winners == [t.winner for t in state.tricks]


@settings(max_examples=40, deadline=None)
@given(seed=seeds, hands=st.integers(min_value=1, max_value=30))
def test_records_round_trip_and_rubbers_end_exactly_at_four_games(seed: int, hands: int) -> None:
    doc = random_record(random.Random(seed), hands)
    record = load_record(doc)
    assert load_record(__import__("json").loads(dumps(record))) == record
    scored = score_record(record)
    games = [0, 0]
    for s in scored.scores:
        assert s is not None
        assert all(0 <= p <= 9 for p in s.score.points)
        for g in s.score.games:
            assert 1 <= g.value <= 4
            games[g.side] += 1
            assert games[g.side] <= 4
        if s.rubber_winner is not None:
            assert games[s.rubber_winner] == 4 and games[s.rubber_winner ^ 1] < 4
            assert s.score.points == (0, 0)
            games = [0, 0]
        else:
            assert max(games) < 4
    for rubber in scored.sheet.rubbers_json():
        if rubber["winner"] is not None:
            assert rubber["games"][rubber["winner"]] == 4
            assert (
                rubber["value"]
                == rubber["totals"][rubber["winner"]]
                - rubber["totals"]["EW" if rubber["winner"] == "NS" else "NS"]
            )


@settings(max_examples=300, deadline=None)
@given(
    contract=st.sampled_from([Contract.GRAND, Contract.NULLO]),
    ns=st.integers(0, 13),
    h=st.integers(0, 5),
    before=st.tuples(st.integers(0, 9), st.integers(0, 9)),
)
def test_honours_never_score_in_grand_or_nullo(
    contract: Contract, ns: int, h: int, before: tuple[int, int]
) -> None:
    with_h = score_hand(before, (0, 0), HandFacts(contract, 8, (ns, 13 - ns), (h, 5 - h)))
    without = score_hand(before, (0, 0), HandFacts(contract, 8, (ns, 13 - ns), (0, 0)))
    assert with_h == without


@settings(max_examples=300, deadline=None)
@given(
    contract=st.sampled_from(list(Contract)),
    unit=st.sampled_from([1, 2, 3, 4, 8]),
    ns=st.integers(0, 13),
    h=st.integers(0, 5),
    before=st.tuples(st.integers(0, 9), st.integers(0, 9)),
    games=st.tuples(st.integers(0, 3), st.integers(0, 3)),
    revokes=st.lists(
        st.tuples(st.sampled_from([0, 1]), st.sampled_from(["tricks", "deduct", "add"])), max_size=2
    ),
)
def test_marker_stays_0_to_9_and_games_are_worth_1_to_4(
    contract: Contract,
    unit: int,
    ns: int,
    h: int,
    before: tuple[int, int],
    games: tuple[int, int],
    revokes: list[tuple[int, str]],
) -> None:
    from audit.rules.cards import Side

    facts = HandFacts(
        contract, unit, (ns, 13 - ns), (h, 5 - h), tuple((Side(s), o) for s, o in revokes)
    )
    r = score_hand(before, games, facts)
    assert all(0 <= p <= 9 for p in r.score.points)
    assert all(1 <= g.value <= 4 for g in r.score.games)
    for side, _ in revokes:
        assert all(g.side != side for g in r.score.games)
        assert all(b.side != side or b.kind == "rubber" for b in r.score.bonuses)
