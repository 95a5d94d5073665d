"""The service's ceremony steps: shuffle's machine, answered with the service's refusals.

A hand row keeps its phase as text; :mod:`api.ceremony` takes the machine's steps on it
(:func:`shuffle.ceremony.advance`) and answers a refused step as ``WRONG_PHASE`` with the
messages clients have always read.
"""

from __future__ import annotations

import pytest

from api import ceremony
from api.errors import WrongPhase
from audit.rules.cards import Seat


def refusal(phase: str, kind: str, seat: Seat, done: tuple[str, ...] = ()) -> str:
    with pytest.raises(WrongPhase) as info:
        ceremony.step(phase, kind, seat, done)
    assert info.value.code == "WRONG_PHASE" and info.value.status == 409
    return info.value.message


def test_commitments_then_seeds_then_the_deal() -> None:
    assert ceremony.step("committing", "commit", Seat.N, ()) == "committing"
    assert ceremony.step("committing", "commit", Seat.W, ("N", "E", "S")) == "revealing"
    assert ceremony.step("revealing", "reveal", Seat.W, ("N", "E", "S")) == "revealing"
    assert ceremony.dealt("revealing") == "calling"


def test_a_step_out_of_phase_or_repeated_is_refused_in_the_service_words() -> None:
    assert refusal("revealing", "commit", Seat.N) == "the hand is revealing; commitments are closed"
    assert refusal("playing", "commit", Seat.N) == "the hand is playing; commitments are closed"
    assert refusal("committing", "reveal", Seat.E) == (
        "the hand is committing; seeds are revealed after all four commit"
    )
    assert refusal("calling", "reveal", Seat.E) == (
        "the hand is calling; seeds are revealed after all four commit"
    )
    assert refusal("committing", "commit", Seat.S, ("S",)) == "S has already committed"
    assert refusal("revealing", "reveal", Seat.W, ("N", "W")) == "W has already revealed"


def test_only_an_unfinished_ceremony_is_void() -> None:
    assert ceremony.voided("committing") == "void"
    assert ceremony.voided("revealing") == "void"
    assert ceremony.in_ceremony("revealing") and not ceremony.in_ceremony("calling")
    for phase in ("calling", "playing", "over", "void"):
        with pytest.raises(WrongPhase) as info:
            ceremony.voided(phase)
        assert info.value.message == f"the hand is {phase}; only an unfinished ceremony is void"
