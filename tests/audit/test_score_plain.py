"""The native path's scorer for hands without revokes is :func:`score_hand`'s answer."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from audit.rules.contract import Contract
from audit.rules.ruleset import Ruleset
from audit.rules.scoring import HandFacts, score_hand, score_plain

_RULESETS = [Ruleset(seven_is="single"), Ruleset(seven_is="double")]


@st.composite
def _honours(draw: st.DrawFn) -> tuple[int, int]:
    ns = draw(st.integers(0, 5))
    return ns, draw(st.integers(0, 5 - ns))


@settings(max_examples=600)
@given(
    marker=st.tuples(st.integers(0, 9), st.integers(0, 9)),
    games=st.tuples(st.integers(0, 3), st.integers(0, 3)),
    contract=st.sampled_from(list(Contract)),
    unit=st.sampled_from([1, 2, 3, 4, 6, 8, 12]),
    ns=st.integers(0, 13),
    ew=st.one_of(st.none(), st.integers(0, 13)),
    honours=_honours(),
    ruleset=st.sampled_from(_RULESETS),
)
def test_score_plain_is_score_hand_without_revokes(
    marker: tuple[int, int],
    games: tuple[int, int],
    contract: Contract,
    unit: int,
    ns: int,
    ew: int | None,
    honours: tuple[int, int],
    ruleset: Ruleset,
) -> None:
    """Same JSON lines, marker, games after and games won, for any hand without revokes."""
    tricks = (ns, 13 - ns if ew is None else ew)
    held = honours if contract.has_trump else (0, 0)
    want = score_hand(marker, games, HandFacts(contract, unit, tricks, held), ruleset)
    points, games_after, n_won, lines = score_plain(
        marker, games, contract, unit, tricks, held, ruleset
    )
    assert lines == [line.to_json() for line in want.explanation]
    assert points == want.score.points
    assert games_after == want.games_after
    assert n_won == len(want.score.games)


def test_a_rubber_won_on_tricks_with_honours_dropped() -> None:
    """A rubber won by the tricks drops the honours after it, and says so."""
    args = ((0, 8), (0, 3), Contract.H, 2, (1, 12), (0, 4))
    want = score_hand(*args[:2], HandFacts(*args[2:]))  # type: ignore[arg-type]
    points, games_after, n_won, lines = score_plain(*args)  # type: ignore[arg-type]
    kinds = [line["kind"] for line in lines]
    assert kinds == ["tricks", "game", "rubber", "honours", "dropped", "little_slam", "dropped"]
    assert lines == [line.to_json() for line in want.explanation]
    assert (points, games_after, n_won) == ((0, 0), (0, 0), 1)
