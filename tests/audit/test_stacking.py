"""The stacked-deal detector: calibration, power on unshuffled packs, the API's edges."""

from __future__ import annotations

import itertools
import json
import math
import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from audit.errors import FairplayError, RulesetError
from audit.rules.cards import Seat, Side
from audit.rules.deal import (
    PATTERN_67,
    PATTERN_445,
    PATTERN_ONE_AT_A_TIME,
    PATTERNS,
    deal_from_order,
)
from audit.stacking import (
    METHOD_HANDS,
    METHOD_ORDER,
    StackingArgumentError,
    combine_by_dealer,
    combine_p_values,
    previous_hand_with_pack,
    stacking_test,
)
from audit.stacking.hands import (
    advance_score,
    mirrored,
    mirrored_pairs,
    oriented_score,
    two_way_score,
)
from audit.stacking.order import (
    SOFT_MIN_SCALE,
    cyclic_descents,
    exact_p_value,
    min_cyclic_descents,
    most_likely_riffles,
    soft_min_descents,
    two_way_soft_min,
)
from audit.stacking.reference import reference_from_gathered
from audit.stacking.simulate import (
    book_cheat_pack,
    cut,
    gathered_pack,
    random_tricks,
    riffle,
    thorough,
)
from audit.stacking.tables import MIN_P, TailTable, load_tables, pattern_tables

ALL_PATTERNS = list(PATTERNS.values())


Case = tuple[
    list[list[int]], dict[Side, list[int]], list[int], list[int], Seat, dict[Seat, list[int]]
]


def _case(rng: random.Random, riffles: int | None, pattern: tuple[int, ...] = PATTERN_445) -> Case:
    """(tricks, gathered, pack as gathered, dealt order, dealer, deal)."""
    tricks, gathered = random_tricks(rng)
    pack = gathered_pack(tricks, gathered, rng)
    dealt = thorough(rng) if riffles is None else cut(riffle(pack, riffles, rng), rng)
    dealer = Seat(rng.randrange(4))
    return tricks, gathered, pack, dealt, dealer, deal_from_order(dealt, dealer, pattern)


# --- calibration on honest shuffles -------------------------------------------------


@pytest.mark.parametrize("pattern", ALL_PATTERNS, ids=list(PATTERNS))
@pytest.mark.parametrize("collected", [False, True])
def test_hands_p_values_are_uniform_on_thorough_shuffles(
    pattern: tuple[int, ...], collected: bool
) -> None:
    rng = random.Random(11)
    ps = []
    for _ in range(3000):
        tricks, gathered, pack, _, dealer, deal = _case(rng, None, pattern)
        r = stacking_test(
            tricks,
            None if collected else gathered,
            pack if collected else None,
            deal,
            dealer,
            pattern,
        )
        assert r is not None and r.method == METHOD_HANDS
        ps.append(r.p_value)
    n = len(ps)
    for q in (0.05, 0.2, 0.5, 0.8):
        share = sum(p <= q for p in ps) / n
        # binomial sd at n=3000 is at most 0.0092: allow 4 sd plus the table's own error
        assert abs(share - q) < 0.04, (q, share)
    assert sum(p <= 0.01 for p in ps) <= 0.01 * n + 4 * math.sqrt(0.01 * n) + 5


@pytest.mark.parametrize("collected", [False, True])
def test_order_p_values_are_valid_on_thorough_shuffles(collected: bool) -> None:
    rng = random.Random(12)
    ps = []
    for _ in range(3000):
        tricks, gathered, pack, dealt, dealer, deal = _case(rng, None)
        r = stacking_test(
            tricks,
            None if collected else gathered,
            pack if collected else None,
            deal,
            dealer,
            PATTERN_445,
            dealt,
        )
        assert r is not None and r.method == METHOD_ORDER
        ps.append(r.p_value)
    n = len(ps)
    for q in (0.01, 0.05, 0.2, 0.5, 0.8):
        share = sum(p <= q for p in ps) / n
        slack = 4 * math.sqrt(q * (1 - q) / n) + 0.005
        if collected:
            # the exact count of rising sequences is an integer: P(p <= q) <= q
            assert share <= q + slack, (q, share)
        else:
            # the soft minimum is continuous: uniform
            assert abs(share - q) <= slack, (q, share)
    assert 0.4 < sum(ps) / n < 0.6


def test_cyclic_descents_follow_the_eulerian_law() -> None:
    rng = random.Random(13)
    ref = list(range(52))
    n = 20000
    ws = []
    for _ in range(n):
        pos = list(range(52))
        rng.shuffle(pos)
        ws.append(cyclic_descents(ref, pos))
    for w in (22, 25, 27, 30):
        share = sum(x <= w for x in ws) / n
        assert abs(share - exact_p_value(w)) < 0.015, (w, share, exact_p_value(w))
    assert exact_p_value(52) == pytest.approx(1.0)
    assert exact_p_value(1) == pytest.approx(1 / math.factorial(51))
    assert sum(ws) / n == pytest.approx(26.0, abs=0.1)


# --- power ------------------------------------------------------------------------


@pytest.mark.parametrize("pattern", ALL_PATTERNS, ids=list(PATTERNS))
@pytest.mark.parametrize("with_order", [False, True])
def test_a_pack_only_cut_is_always_caught(pattern: tuple[int, ...], with_order: bool) -> None:
    rng = random.Random(21)
    for _ in range(40):
        tricks, gathered, _, dealt, dealer, deal = _case(rng, 0, pattern)
        r = stacking_test(
            tricks, gathered, None, deal, dealer, pattern, dealt if with_order else None
        )
        assert r is not None
        assert r.p_value < 1e-6, r
        assert r.evidence["riffles"] == 0


def test_one_at_a_time_spreads_every_trick_of_an_unshuffled_pack() -> None:
    rng = random.Random(22)
    tricks, gathered, _, _, dealer, deal = _case(rng, 0, PATTERN_ONE_AT_A_TIME)
    r = stacking_test(tricks, gathered, None, deal, dealer, PATTERN_ONE_AT_A_TIME)
    assert r is not None and r.p_value < 1e-9
    assert r.evidence["tricks_spread"] == list(range(1, 14))
    assert r.evidence["tricks_together"] == []
    assert r.evidence["advances"][1] >= 48  # neighbours land in the next hand


def test_packets_keep_tricks_together_in_an_unshuffled_pack() -> None:
    rng = random.Random(23)
    tricks, gathered, _, _, dealer, deal = _case(rng, 0, PATTERN_67)
    r = stacking_test(tricks, gathered, None, deal, dealer, PATTERN_67)
    assert r is not None and r.p_value < 1e-9
    assert len(r.evidence["tricks_together"]) >= 6


def test_one_riffle_in_packets_is_caught_from_the_hands() -> None:
    rng = random.Random(24)
    caught = 0
    for _ in range(100):
        tricks, gathered, _, _, dealer, deal = _case(rng, 1)
        r = stacking_test(tricks, gathered, None, deal, dealer, PATTERN_445)
        assert r is not None
        caught += r.p_value <= 0.001
    assert caught >= 97


def test_four_riffles_are_seen_in_the_dealt_order_and_named() -> None:
    rng = random.Random(25)
    caught = 0
    named = []
    for _ in range(100):
        tricks, gathered, pack, dealt, dealer, deal = _case(rng, 4)
        r = stacking_test(tricks, None, pack, deal, dealer, PATTERN_445, dealt)
        assert r is not None
        caught += r.p_value <= 0.001
        named.append(r.evidence["riffles"])
    assert caught >= 97  # with `collected` the reference is exact
    assert max(set(named), key=named.count) == 4


def test_combined_evidence_catches_a_dealer_who_riffles_twice() -> None:
    rng = random.Random(26)
    ps = []
    for _ in range(20):
        tricks, gathered, _, _, dealer, deal = _case(rng, 2)
        r = stacking_test(tricks, gathered, None, deal, dealer, PATTERN_445)
        assert r is not None
        ps.append(r.p_value)
    assert combine_p_values(ps) < 1e-6


# --- invariances and the dynamic programmes ----------------------------------------


def test_the_result_does_not_depend_on_seat_names_or_pile_order() -> None:
    rng = random.Random(31)
    tricks, gathered, _, dealt, dealer, deal = _case(rng, 2)
    base = stacking_test(tricks, gathered, None, deal, dealer, PATTERN_445, None)
    turned = {Seat((s + 1) & 3): cards for s, cards in deal.items()}
    moved = stacking_test(tricks, gathered, None, turned, dealer.left, PATTERN_445, None)
    assert base is not None and moved is not None
    assert moved.p_value == pytest.approx(base.p_value)
    # which pile went on top is unknown and irrelevant: swapping the sides' lists only
    # rotates the cycle
    swapped = {Side.NS: gathered[Side.EW], Side.EW: gathered[Side.NS]}
    other = stacking_test(tricks, swapped, None, deal, dealer, PATTERN_445, None)
    assert other is not None and other.p_value == pytest.approx(base.p_value)


def test_orientation_programmes_match_brute_force() -> None:
    rng = random.Random(32)
    tricks, gathered, _, dealt, dealer, deal = _case(rng, 3)
    ref = reference_from_gathered(tricks, gathered)
    assert ref is not None
    pos = [0] * 52
    for i, c in enumerate(dealt):
        pos[c] = i
    rel = [0] * 52
    for seat, cards in deal.items():
        for c in cards:
            rel[c] = (seat - dealer - 1) & 3
    weights = [0.6, 0.5, -1.5, -3.6]
    best = 10**9
    total = 0.0
    soft = 0.0
    for flips in itertools.product((False, True), repeat=13):
        cards = [c for b, f in zip(ref.blocks, flips, strict=True) for c in (b[::-1] if f else b)]
        w_o = cyclic_descents(cards, pos)
        best = min(best, w_o)
        soft += math.exp(-SOFT_MIN_SCALE * w_o)
        s = sum(weights[(rel[cards[(i + 1) % 52]] - rel[cards[i]]) & 3] for i in range(52))
        total += math.exp(s)
    w, flips_found = min_cyclic_descents(ref.blocks, pos)
    assert w == best
    cards = [c for b, f in zip(ref.blocks, flips_found, strict=True) for c in (b[::-1] if f else b)]
    assert cyclic_descents(cards, pos) == w
    assert advance_score(ref.blocks, rel, weights) == pytest.approx(math.log(total))
    expected_soft = -math.log(soft) / SOFT_MIN_SCALE
    assert soft_min_descents(ref.blocks, pos) == pytest.approx(expected_soft)
    assert w - 13 * math.log(2) / SOFT_MIN_SCALE <= expected_soft <= w


def test_both_directions_of_the_cycle_count() -> None:
    rng = random.Random(33)
    tricks, gathered, _, dealt, dealer, deal = _case(rng, 2)
    ref = reference_from_gathered(tricks, gathered)
    assert ref is not None
    pos = [0] * 52
    for i, c in enumerate(dealt):
        pos[c] = i
    rel = [0] * 52
    for seat, cards in deal.items():
        for c in cards:
            rel[c] = (seat - dealer - 1) & 3
    weights = [0.6, 0.5, -1.5, -3.6]
    backward_blocks = [b[::-1] for b in reversed(ref.blocks)]
    soft = 0.0
    for blocks in (ref.blocks, backward_blocks):
        for flips in itertools.product((False, True), repeat=13):
            cards = [c for b, f in zip(blocks, flips, strict=True) for c in (b[::-1] if f else b)]
            soft += math.exp(-SOFT_MIN_SCALE * cyclic_descents(cards, pos))
    assert two_way_soft_min(ref.blocks, pos)[0] == pytest.approx(-math.log(soft) / SOFT_MIN_SCALE)
    forward = advance_score(ref.blocks, rel, weights)
    backward = advance_score(backward_blocks, rel, weights)
    expected = math.log((math.exp(forward) + math.exp(backward)) / 2)
    assert two_way_score(ref.blocks, rel, weights)[0] == pytest.approx(expected)


def test_the_markov_score_sums_every_orientation() -> None:
    # the hands statistic: single weights and weights of consecutive advances, summed
    # over the 2**13 orientations by the dynamic programme; read backwards, pairs reverse
    rng = random.Random(35)
    tricks, gathered, _, _, dealer, deal = _case(rng, 2)
    ref = reference_from_gathered(tricks, gathered)
    assert ref is not None
    rel = [0] * 52
    for seat, cards in deal.items():
        for c in cards:
            rel[c] = (seat - dealer - 1) & 3
    weights = [-0.4, -0.6, 0.6, 1.9]
    pairs = [[rng.uniform(-2.0, 2.0) for _ in range(4)] for _ in range(4)]

    def chain(cards: list[int], w: list[float] | tuple[float, ...], v: object) -> float:
        steps = [(rel[cards[(i + 1) % 52]] - rel[cards[i]]) & 3 for i in range(52)]
        return sum(w[a] + v[steps[i - 1]][a] for i, a in enumerate(steps))  # type: ignore[index]

    backward_blocks = [b[::-1] for b in reversed(ref.blocks)]
    totals = []
    for blocks in (ref.blocks, backward_blocks):
        total = 0.0
        for flips in itertools.product((False, True), repeat=13):
            cards = [c for b, f in zip(blocks, flips, strict=True) for c in (b[::-1] if f else b)]
            total += math.exp(chain(cards, weights, pairs))
        totals.append(total)
    assert advance_score(ref.blocks, rel, weights, pairs) == pytest.approx(math.log(totals[0]))
    mirror = advance_score(ref.blocks, rel, mirrored(weights), mirrored_pairs(pairs))
    assert mirror == pytest.approx(math.log(totals[1]))
    expected = math.log((totals[0] + totals[1]) / 2)
    assert two_way_score(ref.blocks, rel, weights, pairs)[0] == pytest.approx(expected)
    cycle = [c for b in ref.blocks for c in b]
    assert oriented_score(cycle, rel, weights, pairs) == pytest.approx(chain(cycle, weights, pairs))


@pytest.mark.parametrize("with_order", [False, True])
def test_a_pile_read_first_trick_on_top_is_caught_too(with_order: bool) -> None:
    # some producers list the top of each pile first: the pack as such a tool collects it
    rng = random.Random(34)
    for _ in range(10):
        tricks, gathered = random_tricks(rng)
        pack = [c for side in (Side.NS, Side.EW) for t in gathered[side] for c in tricks[t - 1]]
        dealt = cut(riffle(pack, 1, rng), rng)
        dealer = Seat(rng.randrange(4))
        deal = deal_from_order(dealt, dealer, PATTERN_445)
        r = stacking_test(
            tricks, gathered, None, deal, dealer, PATTERN_445, dealt if with_order else None
        )
        assert r is not None and r.p_value < 1e-4
        assert r.evidence["direction"] == "first trick of each pile on top"


def test_most_likely_riffles_follows_the_bayer_diaconis_bound() -> None:
    assert most_likely_riffles(1)[0] == 0
    assert most_likely_riffles(2)[0] == 1
    assert most_likely_riffles(16)[0] == 4
    assert most_likely_riffles(26)[0] >= 7


def test_tables_are_monotone_and_floored() -> None:
    for pattern in ALL_PATTERNS:
        pt = pattern_tables(pattern)
        assert pt is not None
        for t in (pt.null, pt.null_oriented):
            scores = [-1e6, *t.grid, t.grid[-1] + 5, 1e6]
            ps = [t.p_value(s) for s in scores]
            assert ps[0] == 1.0 and ps[-1] == MIN_P
            assert all(a >= b for a, b in itertools.pairwise(ps))
            assert t.p_value(1e6, extrapolate=False) == t.deepest < 1e-4
    tables = load_tables()
    order_ps = [tables.order_p_value(w / 4, SOFT_MIN_SCALE) for w in range(0, 4 * 53)]
    assert all(a <= b for a, b in itertools.pairwise(order_ps))
    assert order_ps[-1] == 1.0
    assert order_ps[0] == MIN_P  # a pack only cut: the exact union bound
    assert tables.samples >= 1_000_000


# --- API edges ---------------------------------------------------------------------


def test_not_testable_returns_none() -> None:
    rng = random.Random(41)
    tricks, gathered, pack, dealt, dealer, deal = _case(rng, None)
    assert stacking_test(tricks, None, None, deal, dealer, PATTERN_445) is None
    missing = {Side.NS: gathered[Side.NS], Side.EW: gathered[Side.EW][:-1]}
    assert stacking_test(tricks, missing, None, deal, dealer, PATTERN_445) is None
    short = dict(deal)
    short[Seat.N] = short[Seat.N][:12]
    assert stacking_test(tricks, gathered, None, short, dealer, PATTERN_445) is None
    twice = dict(deal)
    twice[Seat.N] = [*twice[Seat.N][:12], twice[Seat.E][0]]
    assert stacking_test(tricks, gathered, None, twice, dealer, PATTERN_445) is None
    assert stacking_test(tricks[:12], gathered, None, deal, dealer, PATTERN_445) is None
    # a packet pattern without tables: only the full order can be tested
    odd = (3, 3, 3, 4)
    odd_deal = deal_from_order(dealt, dealer, odd)
    assert stacking_test(tricks, gathered, None, odd_deal, dealer, odd) is None
    r = stacking_test(tricks, gathered, None, odd_deal, dealer, odd, dealt)
    assert r is not None and r.method == METHOD_ORDER


def test_a_pattern_that_does_not_deal_thirteen_raises() -> None:
    rng = random.Random(42)
    tricks, gathered, _, _, dealer, deal = _case(rng, None)
    with pytest.raises(RulesetError) as info:
        stacking_test(tricks, gathered, None, deal, dealer, (4, 4, 4))
    assert isinstance(info.value, FairplayError)
    assert "deal_pattern" in str(info.value)


def test_a_dealt_order_that_is_not_this_deal_is_set_aside() -> None:
    rng = random.Random(43)
    tricks, gathered, _, dealt, dealer, deal = _case(rng, 0)
    wrong = dealt[1:] + dealt[:1]
    r = stacking_test(tricks, gathered, None, deal, dealer, PATTERN_445, wrong)
    assert r is not None and r.method == METHOD_HANDS
    assert "set aside" in r.evidence["note"]


def test_collected_is_preferred_and_exact() -> None:
    rng = random.Random(44)
    tricks, gathered, pack, dealt, dealer, deal = _case(rng, None)
    r = stacking_test(tricks, gathered, pack, deal, dealer, PATTERN_445, dealt)
    assert r is not None and r.evidence["reference"] == "collected"
    assert r.p_value == pytest.approx(max(exact_p_value(int(r.statistic)), MIN_P))
    # a collected list that is not a pack falls back to the gathering
    r2 = stacking_test(tricks, gathered, pack[:51], deal, dealer, PATTERN_445, dealt)
    assert r2 is not None and r2.evidence["reference"] == "gathered"


def test_evidence_is_json() -> None:
    rng = random.Random(45)
    for with_order in (False, True):
        tricks, gathered, _, dealt, dealer, deal = _case(rng, 1)
        r = stacking_test(
            tricks, gathered, None, deal, dealer, PATTERN_445, dealt if with_order else None
        )
        assert r is not None
        text = json.dumps(r.as_dict())
        back = json.loads(text)
        assert back["p_value"] == r.p_value and back["method"] == r.method
        assert 0.0 < r.p_value <= 1.0


def test_combine_p_values() -> None:
    assert combine_p_values([]) == 1.0
    assert combine_p_values([0.3]) == pytest.approx(0.3)
    x = -2 * 2 * math.log(0.05)
    assert combine_p_values([0.05, 0.05]) == pytest.approx(math.exp(-x / 2) * (1 + x / 2))
    assert combine_p_values([1.0, 1.0]) == 1.0
    assert combine_p_values([0.0]) == pytest.approx(MIN_P)
    # uniform p-values combine to a uniform p-value
    rng = random.Random(46)
    combined = [combine_p_values([rng.random() for _ in range(20)]) for _ in range(4000)]
    for q in (0.05, 0.5):
        assert abs(sum(c <= q for c in combined) / len(combined) - q) < 0.03


def test_previous_hand_with_pack() -> None:
    assert previous_hand_with_pack([0, 1, 0, 1], 2) == 0
    assert previous_hand_with_pack([0, 1, 0, 1], 1) is None
    assert previous_hand_with_pack([0, 1, 1, 0], 3) == 0  # a misdeal redealt the same pack
    assert previous_hand_with_pack([None, None, None], 2) == 0
    assert previous_hand_with_pack([None, None], 1) is None
    assert previous_hand_with_pack([0], 5) is None


def test_combine_by_dealer_pools_each_dealers_deals() -> None:
    rng = random.Random(47)
    results = []
    for h in range(16):
        dealer = Seat(h % 4)
        riffles = 1 if dealer == Seat.E else None  # E under-shuffles every time
        tricks, gathered, _, dealt, _, _ = _case(rng, riffles)
        dealt_deal = deal_from_order(dealt, dealer, PATTERN_445)
        results.append(
            (dealer, stacking_test(tricks, gathered, None, dealt_deal, dealer, PATTERN_445))
        )
    results.append((Seat.N, None))
    pooled = combine_by_dealer(results)
    assert pooled[Seat.E]["deals"] == 4 and pooled[Seat.E]["hands"] == [2, 6, 10, 14]
    assert pooled[Seat.E]["p_value"] < 1e-9
    assert pooled[Seat.N]["deals"] == 4
    assert pooled[Seat.N]["p_value"] > 1e-4


def test_tail_table_reads_atoms_conservatively() -> None:
    table = TailTable((0.0, 1.0, 1.0, 1.0, 2.0), steps=1)
    assert table.p_value(-1.0) == 1.0
    assert table.p_value(1.0) == pytest.approx(0.1)  # not 1e-3: the atom holds 10%
    assert table.p_value(0.5) == pytest.approx(10**-0.5)
    assert table.p_value(2.0) == pytest.approx(1e-4)
    assert table.p_value(3.0, extrapolate=False) == pytest.approx(1e-4)
    assert table.p_value(3.0) < 1e-4


def test_record_text_keys_are_accepted() -> None:
    rng = random.Random(48)
    tricks, gathered, _, _, dealer, deal = _case(rng, 1)
    typed = stacking_test(tricks, gathered, None, deal, dealer, PATTERN_445)
    text = stacking_test(
        tricks,
        {side.name: numbers for side, numbers in gathered.items()},
        None,
        {seat.name: cards for seat, cards in deal.items()},
        dealer.name,
        PATTERN_445,
    )
    assert typed is not None and text is not None
    assert text.p_value == typed.p_value
    odd_seat: dict[str, list[int]] = {"X": [], **{s.name: c for s, c in deal.items()}}
    assert stacking_test(tricks, gathered, None, odd_seat, dealer, PATTERN_445) is None


@pytest.mark.parametrize("with_order", [False, True])
def test_the_books_cheat_dealt_six_seven_is_caught(with_order: bool) -> None:
    rng = random.Random(49)
    for _ in range(30):
        tricks, gathered = random_tricks(rng)
        pack = gathered_pack(tricks, gathered, rng)
        dealt = cut(book_cheat_pack(pack, rng), rng)
        dealer = Seat(rng.randrange(4))
        deal = deal_from_order(dealt, dealer, PATTERN_67)
        for use_collected in (False, True):
            r = stacking_test(
                tricks,
                None if use_collected else gathered,
                pack if use_collected else None,
                deal,
                dealer,
                PATTERN_67,
                dealt if with_order else None,
            )
            assert r is not None and r.p_value < 1e-3, (use_collected, r)


@settings(max_examples=60, deadline=None)
@given(
    pack=st.permutations(range(52)),
    dealt=st.permutations(range(52)),
    dealer=st.sampled_from(list(Seat)),
    pattern=st.sampled_from(ALL_PATTERNS),
    split=st.integers(min_value=0, max_value=13),
)
def test_any_deal_gets_a_p_value_in_range(
    pack: list[int], dealt: list[int], dealer: Seat, pattern: tuple[int, ...], split: int
) -> None:
    tricks = [pack[4 * i : 4 * i + 4] for i in range(13)]
    gathered = {Side.NS: list(range(1, split + 1)), Side.EW: list(range(split + 1, 14))}
    deal = deal_from_order(dealt, dealer, pattern)
    for order in (None, dealt):
        for use_collected in (False, True):
            r = stacking_test(
                tricks,
                None if use_collected else gathered,
                pack if use_collected else None,
                deal,
                dealer,
                pattern,
                order,
            )
            assert r is not None
            assert MIN_P <= r.p_value <= 1.0
            assert json.loads(json.dumps(r.as_dict()))["p_value"] == r.p_value
            if order is not None:
                assert 1 <= r.evidence["rising_sequences"] <= 52


def test_pile_top_must_be_a_documented_choice() -> None:
    rng = random.Random(50)
    tricks, gathered, _, _, dealer, deal = _case(rng, None)
    with pytest.raises(StackingArgumentError) as info:
        stacking_test(tricks, gathered, None, deal, dealer, PATTERN_445, pile_top="top")
    assert info.value.code == "STACKING_ARGUMENT" and "pile_top" in str(info.value)


@pytest.mark.parametrize("with_order", [False, True])
def test_a_known_pile_convention_is_calibrated_and_used(with_order: bool) -> None:
    rng = random.Random(51)
    ps = []
    for _ in range(2000):
        tricks, gathered, _, dealt, dealer, deal = _case(rng, None)
        order = dealt if with_order else None
        r = stacking_test(tricks, gathered, None, deal, dealer, PATTERN_445, order, pile_top="last")
        assert r is not None and r.evidence["direction"] == "last trick of each pile on top"
        ps.append(r.p_value)
    for q in (0.05, 0.3, 0.7):
        assert abs(sum(p <= q for p in ps) / len(ps) - q) < 0.04
    # the producer's convention, told: stronger than "either"; the wrong one: weaker
    tricks, gathered = random_tricks(rng)
    pack = [c for side in (Side.NS, Side.EW) for t in gathered[side] for c in tricks[t - 1]]
    dealt = cut(riffle(pack, 4 if with_order else 2, rng), rng)
    deal = deal_from_order(dealt, Seat.N, PATTERN_445)
    order = dealt if with_order else None
    p = {
        top: stacking_test(tricks, gathered, None, deal, Seat.N, PATTERN_445, order, pile_top=top)
        for top in ("first", "either", "last")
    }
    assert p["first"] is not None and p["either"] is not None and p["last"] is not None
    assert p["first"].p_value < p["either"].p_value < 0.01
    assert p["last"].p_value > 10 * p["either"].p_value
