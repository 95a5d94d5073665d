"""The ceremony state machine: order of steps, refused reveals, aborts, beacon."""

from __future__ import annotations

import secrets

import pytest

from audit.rules.cards import Seat
from shuffle.ceremony import Ceremony, OutOfPhaseError, Phase, RepeatedStepError, Step, advance
from shuffle.errors import CeremonyError, CommitmentMismatchError, ShuffleFormatError
from shuffle.protocol import SEAT_ORDER, Beacon, Transcript, seat_commitment
from shuffle.verify import verify_transcript

PLAYERS = {Seat.N: "nina", Seat.E: "eli", Seat.S: "sam", Seat.W: "wu"}


def seat_seeds() -> dict[Seat, bytes]:
    return {s: secrets.token_bytes(32) for s in SEAT_ORDER}


def committed(c: Ceremony, seeds: dict[Seat, bytes]) -> None:
    for s in SEAT_ORDER:
        c.commit(s, seat_commitment(seeds[s], s, PLAYERS[s], c.table, c.hand))


def test_full_ceremony_verifies() -> None:
    c = Ceremony("t-9", 3, Seat.S, PLAYERS, pattern=(6, 7), pack=1)
    seeds = seat_seeds()
    assert c.phase is Phase.COMMITTING
    public = c.public_transcript().to_json()
    assert "seed" not in public["server"]  # not before the hand ends
    committed(c, seeds)
    assert c.phase is Phase.REVEALING
    for s in SEAT_ORDER:
        c.reveal(s, seeds[s])
    derived = c.deal()
    assert "seed" not in c.public_transcript().to_json()["server"]
    t = c.finish()
    assert c.phase is Phase.CLOSED
    r = verify_transcript(t.to_json())
    assert r.deal == derived.deal and r.cayenne == derived.cayenne
    assert t.claimed_deal_number == derived.deal_number
    assert Transcript.from_json(c.public_transcript().to_json()).server_seed is not None


def test_two_ceremonies_draw_different_server_seeds() -> None:
    a = Ceremony("t", 1, Seat.N, PLAYERS)
    b = Ceremony("t", 1, Seat.N, PLAYERS)
    assert a.server_commitment != b.server_commitment


def test_injected_rng_makes_the_server_commitment_reproducible() -> None:
    a = Ceremony("t", 1, Seat.N, PLAYERS, rng=lambda n: b"\x01" * n)
    b = Ceremony("t", 1, Seat.N, PLAYERS, rng=lambda n: b"\x01" * n)
    assert a.server_commitment == b.server_commitment


def test_no_reveal_before_every_commitment() -> None:
    c = Ceremony("t", 1, Seat.N, PLAYERS)
    seeds = seat_seeds()
    c.commit(Seat.N, seat_commitment(seeds[Seat.N], Seat.N, "nina", "t", 1))
    with pytest.raises(CeremonyError) as info:
        c.reveal(Seat.N, seeds[Seat.N])
    assert info.value.path == "seats.N.seed"
    with pytest.raises(CeremonyError):
        c.commit(Seat.N, seat_commitment(seeds[Seat.N], Seat.N, "nina", "t", 1))
    with pytest.raises(CeremonyError):
        c.deal()


def test_a_wrong_or_copied_reveal_is_refused() -> None:
    c = Ceremony("t", 1, Seat.N, PLAYERS)
    seeds = seat_seeds()
    committed(c, seeds)
    with pytest.raises(CommitmentMismatchError) as info:
        c.reveal(Seat.E, seeds[Seat.N])  # E tries N's seed
    assert info.value.path == "seats.E.seed"
    with pytest.raises(ShuffleFormatError):
        c.reveal(Seat.E, b"short")
    c.reveal(Seat.E, seeds[Seat.E])
    with pytest.raises(CeremonyError):
        c.reveal(Seat.E, seeds[Seat.E])


def test_withheld_reveal_voids_the_hand() -> None:
    c = Ceremony("t", 8, Seat.W, PLAYERS)
    seeds = seat_seeds()
    committed(c, seeds)
    for s in (Seat.N, Seat.E, Seat.S):
        c.reveal(s, seeds[s])
    with pytest.raises(CeremonyError) as info:
        c.deal()
    assert "W.seed" in info.value.message
    void = c.abort("W did not reveal within 30 s")
    assert void.missing == ("W.seed",) and void.phase == "revealing" and void.hand == 8
    assert "seed" in void.transcript["server"]  # the server's seed is published for checking
    assert "seed" not in void.transcript["seats"]["W"]
    assert c.phase is Phase.VOID
    for step in (lambda: c.deal(), lambda: c.finish(), lambda: c.abort("again")):
        with pytest.raises(CeremonyError):
            step()


def test_abort_before_commitments_lists_them() -> None:
    c = Ceremony("t", 1, Seat.N, PLAYERS)
    void = c.abort("E left")
    assert void.missing[:4] == ("N.commitment", "E.commitment", "S.commitment", "W.commitment")
    assert "commitment" not in void.transcript["seats"]["E"]


def test_expected_beacon_is_required_and_used() -> None:
    c = Ceremony("t", 1, Seat.N, PLAYERS, expect_beacon=True)
    seeds = seat_seeds()
    committed(c, seeds)
    for s in SEAT_ORDER:
        c.reveal(s, seeds[s])
    with pytest.raises(CeremonyError):
        c.deal()
    c.set_beacon(Beacon("drand:quicknet", 99, b"\x05" * 32))
    with pytest.raises(CeremonyError):
        c.set_beacon(Beacon("drand:quicknet", 100, b"\x05" * 32))
    c.deal()
    t = c.finish()
    assert t.beacon is not None and Transcript.from_json(t.to_json()).beacon == t.beacon
    verify_transcript(t.to_json())


def test_bad_parameters() -> None:
    with pytest.raises(ShuffleFormatError):
        Ceremony("", 1, Seat.N, PLAYERS)
    with pytest.raises(ShuffleFormatError):
        Ceremony("t", 0, Seat.N, PLAYERS)
    with pytest.raises(ShuffleFormatError):
        Ceremony("t", 1, Seat.N, PLAYERS, pack=2)


def test_the_machine_moves_on_only_when_its_phase_takes_the_step() -> None:
    done3 = (Seat.N, Seat.E, Seat.S)
    assert advance(Phase.COMMITTING, Step.COMMIT, Seat.N) is Phase.COMMITTING
    assert advance(Phase.COMMITTING, Step.COMMIT, Seat.W, done3) is Phase.REVEALING
    assert advance(Phase.REVEALING, Step.REVEAL, Seat.W, done3) is Phase.REVEALING
    assert advance(Phase.REVEALING, Step.DEAL) is Phase.DEALT
    assert advance(Phase.DEALT, Step.FINISH) is Phase.CLOSED
    assert advance(Phase.REVEALING, Step.ABORT) is Phase.VOID
    with pytest.raises(RepeatedStepError) as repeated:
        advance(Phase.COMMITTING, Step.COMMIT, Seat.E, done3)
    assert repeated.value.done == "committed"
    assert repeated.value.message == "shuffle.seats.E.commitment: this seat has already committed"
    with pytest.raises(OutOfPhaseError) as early:
        advance(Phase.COMMITTING, Step.REVEAL, Seat.N)
    assert early.value.message == (
        "shuffle.seats.N.seed: not allowed while the ceremony is committing (needs revealing)"
    )
    assert early.value.phase is Phase.COMMITTING and early.value.code == "SHUFFLE_CEREMONY"
    for phase in (Phase.DEALT, Phase.CLOSED, Phase.VOID):  # a dealt hand is never voided
        with pytest.raises(OutOfPhaseError):
            advance(phase, Step.ABORT)
    with pytest.raises(OutOfPhaseError):
        advance(Phase.DEALT, Step.COMMIT, Seat.N)


def test_a_dealt_ceremony_is_not_aborted() -> None:
    c = Ceremony("t", 1, Seat.N, PLAYERS)
    seeds = seat_seeds()
    committed(c, seeds)
    for s in SEAT_ORDER:
        c.reveal(s, seeds[s])
    c.deal()
    with pytest.raises(CeremonyError) as info:
        c.abort("the server dislikes the deal")
    assert "only an unfinished ceremony is void" in info.value.message
    assert c.phase is Phase.DEALT
