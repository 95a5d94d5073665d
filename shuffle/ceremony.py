"""The ceremony between the server and the four seats, as a state machine.

Phases, in order (each step outside its phase raises :class:`CeremonyError`):

1. ``COMMITTING``: the server has drawn its seed and published ``server_commitment``;
   each seat sends its commitment once. When the fourth arrives the phase advances.
2. ``REVEALING``: each seat reveals its seed; a seed that does not open the seat's
   commitment is refused (constant-time compare) and the seat may send the right one.
   When a beacon is expected, :meth:`Ceremony.set_beacon` supplies it here.
3. ``DEALT``: :meth:`Ceremony.deal` derives the pack, deal and cayenne card.
4. ``CLOSED``: :meth:`Ceremony.finish` reveals the server's seed; the complete
   transcript goes into the record hand's ``shuffle`` field.

An abort before the deal (:meth:`Ceremony.abort`) makes the hand void: it returns a
:class:`VoidHand` to be logged with the partial transcript, and the ceremony cannot
continue. A void hand's number is used up; the next deal is a new ceremony with a new
hand number and a fresh server seed, never a silent re-deal of the same one.

The phases and what moves them are one pure function, :func:`advance`: :class:`Ceremony`
(the CLI's local tables) and the HTTP service's room (``api.room``, which keeps a hand's
ceremony in its row) both take each step through it.
"""

from __future__ import annotations

import secrets
from collections.abc import Callable, Collection, Mapping
from dataclasses import dataclass
from enum import Enum
from typing import Any

from audit.rules.cards import Seat
from audit.rules.deal import DEFAULT_PATTERN, check_pattern
from shuffle import kdf
from shuffle.errors import CeremonyError, CommitmentMismatchError, ShuffleFormatError
from shuffle.protocol import SEAT_ORDER, Beacon, Derived, SeatEntry, Transcript, derive, new_seed
from shuffle.verify import ct_equal

__all__ = [
    "Ceremony",
    "OutOfPhaseError",
    "Phase",
    "RepeatedStepError",
    "Step",
    "VoidHand",
    "advance",
]


class Phase(Enum):
    """Where a hand's ceremony stands."""

    COMMITTING = "committing"
    """The server's commitment is published; the seats send theirs."""
    REVEALING = "revealing"
    """The four commitments are in; the seats reveal their seeds."""
    DEALT = "dealt"
    """The deal is derived (known to the server only, until the hand ends)."""
    CLOSED = "closed"
    """The hand is over and the server's seed revealed: the transcript is complete."""
    VOID = "void"
    """Aborted before the deal: the hand's number is used up."""


class Step(Enum):
    """What moves a ceremony on."""

    COMMIT = "commit"
    """A seat's commitment, once per seat."""
    REVEAL = "reveal"
    """A seat's seed, once per seat, after the four commitments."""
    DEAL = "deal"
    """The derivation, once every seed (and the beacon, if one is expected) is in."""
    FINISH = "finish"
    """The server reveals its seed at the end of the hand."""
    ABORT = "abort"
    """The ceremony cannot finish: the hand is void (never once it is dealt)."""


NEEDS: dict[Step, tuple[Phase, ...]] = {
    Step.COMMIT: (Phase.COMMITTING,),
    Step.REVEAL: (Phase.REVEALING,),
    Step.DEAL: (Phase.REVEALING,),
    Step.FINISH: (Phase.DEALT,),
    Step.ABORT: (Phase.COMMITTING, Phase.REVEALING),
}
"""The phases in which each step is allowed."""

_DONE = {Step.COMMIT: "committed", Step.REVEAL: "revealed"}


class OutOfPhaseError(CeremonyError):
    """A step the ceremony does not take in its phase (``phase``; it needs ``needs``)."""

    def __init__(self, path: str, problem: str, phase: Phase, needs: tuple[Phase, ...]) -> None:
        super().__init__(path, problem)
        self.phase = phase
        self.needs = needs


class RepeatedStepError(CeremonyError):
    """A seat's second commitment or second seed (``done``: what it has already done)."""

    def __init__(self, path: str, done: str) -> None:
        super().__init__(path, f"this seat has already {done}")
        self.done = done


def step_path(step: Step, seat: Seat | None = None) -> str:
    """The transcript path a step writes (``seats.N.commitment``, ``server.seed``...)."""
    if step is Step.COMMIT or step is Step.REVEAL:
        assert seat is not None
        return f"seats.{Seat(seat).name}.{'commitment' if step is Step.COMMIT else 'seed'}"
    return {Step.DEAL: "seats", Step.FINISH: "server.seed", Step.ABORT: ""}[step]


def advance(
    phase: Phase, step: Step, seat: Seat | None = None, done: Collection[Seat] = ()
) -> Phase:
    """The phase once ``step`` is taken in ``phase``; raises if the ceremony refuses it.

    ``seat`` is the seat that commits or reveals, ``done`` the seats that already have
    (for :attr:`Step.COMMIT`, the seats that committed; for :attr:`Step.REVEAL`, those
    that revealed). Pure: the caller checks the step's value (a commitment's length, a
    seed that opens its commitment) and records it, then takes the phase returned. A
    :attr:`Step.DEAL` needs every seed (and an expected beacon): the caller knows what
    it still waits for, and checks it before.

    Raises :class:`OutOfPhaseError` for a step its phase does not take and
    :class:`RepeatedStepError` for a seat's second commitment or seed.
    """
    path = step_path(step, seat)
    needs = NEEDS[step]
    if phase not in needs:
        if step is Step.ABORT:
            problem = f"the ceremony is already {phase.value}"
            if phase is Phase.DEALT:
                problem = "the ceremony is dealt: only an unfinished ceremony is void"
        else:
            problem = f"not allowed while the ceremony is {phase.value} (needs {needs[0].value})"
        raise OutOfPhaseError(path, problem, phase, needs)
    if step is Step.COMMIT or step is Step.REVEAL:
        if seat in done:
            raise RepeatedStepError(path, _DONE[step])
        if step is Step.COMMIT and len(set(done) | {seat}) == len(SEAT_ORDER):
            return Phase.REVEALING
        return phase
    return {Step.DEAL: Phase.DEALT, Step.FINISH: Phase.CLOSED, Step.ABORT: Phase.VOID}[step]


@dataclass(frozen=True, slots=True)
class VoidHand:
    """An aborted hand: what to log. The hand is void and its number is used up."""

    table: str
    hand: int
    phase: str
    """The phase the ceremony was in when it stopped."""
    reason: str
    missing: tuple[str, ...]
    """What was still awaited: ``"N.commitment"``, ``"E.seed"``, ``"beacon"``…"""
    transcript: dict[str, Any]
    """The partial transcript (the server's seed is revealed, so anyone can check it)."""


class Ceremony:
    """One hand's commit-reveal ceremony, run by the server (the HTTP service or the CLI)."""

    def __init__(
        self,
        table: str,
        hand: int,
        dealer: Seat,
        players: Mapping[Seat, str],
        *,
        pattern: tuple[int, ...] = DEFAULT_PATTERN,
        pack: int = 0,
        expect_beacon: bool = False,
        rng: Callable[[int], bytes] = secrets.token_bytes,
    ) -> None:
        if not table or len(table.encode()) > kdf.MAX_TEXT_BYTES:
            raise ShuffleFormatError("table", "must be 1..256 bytes of UTF-8")
        if not 1 <= hand < 2**63:
            raise ShuffleFormatError("hand", "must be a positive integer")
        if pack not in (0, 1):
            raise ShuffleFormatError("pack", "must be 0 or 1")
        self.table = table
        self.hand = hand
        self.dealer = Seat(dealer)
        self.pattern = check_pattern(pattern)
        self.pack = pack
        self.players = {s: players.get(s, "") for s in SEAT_ORDER}
        self.expect_beacon = expect_beacon
        self._server_seed = new_seed(rng)
        self.server_commitment = kdf.server_commitment(self._server_seed, table, hand)
        self._commitments: dict[Seat, bytes] = {}
        self._seeds: dict[Seat, bytes] = {}
        self.beacon: Beacon | None = None
        self.phase = Phase.COMMITTING
        self._derived: Derived | None = None

    # ------------------------------------------------------------ steps

    def commit(self, seat: Seat, commitment: bytes) -> None:
        """Record ``seat``'s commitment (32 bytes), once."""
        seat = Seat(seat)
        after = advance(self.phase, Step.COMMIT, seat, self._commitments)
        if len(commitment) != 32:
            raise ShuffleFormatError(f"seats.{seat.name}.commitment", "must be 32 bytes")
        self._commitments[seat] = bytes(commitment)
        self.phase = after

    def reveal(self, seat: Seat, seed: bytes) -> None:
        """Accept ``seat``'s seed if it opens the seat's commitment; raise otherwise."""
        seat = Seat(seat)
        path = step_path(Step.REVEAL, seat)
        after = advance(self.phase, Step.REVEAL, seat, self._seeds)
        if not kdf.SEAT_SEED_MIN <= len(seed) <= kdf.SEAT_SEED_MAX:
            raise ShuffleFormatError(path, "a seat's seed is 16..64 bytes")
        opened = kdf.seat_commitment(seed, seat, self.players[seat], self.table, self.hand)
        if not ct_equal(opened, self._commitments[seat]):
            raise CommitmentMismatchError(path, f"the seed does not open {seat.name}'s commitment")
        self._seeds[seat] = bytes(seed)
        self.phase = after

    def commit_seed(self, seat: Seat, seed: bytes) -> bytes:
        """Local tables: commit on a seat's behalf to a seed typed at the laptop."""
        commitment = kdf.seat_commitment(seed, seat, self.players[seat], self.table, self.hand)
        self.commit(seat, commitment)
        return commitment

    def set_beacon(self, beacon: Beacon) -> None:
        """The public beacon value for this hand (its round fixed before the commitments)."""
        if self.phase not in (Phase.COMMITTING, Phase.REVEALING):
            raise CeremonyError("beacon", f"too late: the ceremony is {self.phase.value}")
        if self.beacon is not None:
            raise CeremonyError("beacon", "the beacon is already set")
        self.beacon = beacon

    def deal(self) -> Derived:
        """Derive the pack, deal and cayenne card once every seat has revealed."""
        after = advance(self.phase, Step.DEAL)
        missing = self.missing()
        if missing:
            raise CeremonyError("seats", f"cannot deal before {', '.join(missing)}")
        self._derived = derive(self._transcript(with_server_seed=True))
        self.phase = after
        return self._derived

    def finish(self) -> Transcript:
        """End of hand: reveal the server's seed; the complete transcript, outcome written in."""
        self.phase = advance(self.phase, Step.FINISH)
        return self._transcript(with_server_seed=True).with_outcome()

    def abort(self, reason: str) -> VoidHand:
        """Stop the ceremony before the deal: the hand is void (log the result; never
        re-deal it silently). A dealt hand is not voided: its seeds are all in, and a
        server that could void it after seeing the deal would pick among deals."""
        phase = self.phase
        self.phase = advance(phase, Step.ABORT)
        missing = tuple(self.missing())
        partial = self._transcript(with_server_seed=True).to_json()
        for seat in SEAT_ORDER:
            if seat not in self._commitments:
                del partial["seats"][seat.name]["commitment"]  # never made
        return VoidHand(
            table=self.table,
            hand=self.hand,
            phase=phase.value,
            reason=reason,
            missing=missing,
            transcript=partial,
        )

    # ------------------------------------------------------------ views

    def missing(self) -> list[str]:
        """What the ceremony still waits for, in seat order."""
        out = [f"{s.name}.commitment" for s in SEAT_ORDER if s not in self._commitments]
        out += [f"{s.name}.seed" for s in SEAT_ORDER if s not in self._seeds]
        if self.expect_beacon and self.beacon is None:
            out.append("beacon")
        return out

    def public_transcript(self) -> Transcript:
        """The transcript as anyone may see it now (no server seed before the hand ends)."""
        return self._transcript(with_server_seed=self.phase in (Phase.CLOSED, Phase.VOID))

    def _transcript(self, *, with_server_seed: bool) -> Transcript:
        entries = [
            SeatEntry(self.players[s], self._commitments.get(s, b"\0" * 32), self._seeds.get(s))
            for s in SEAT_ORDER
        ]
        return Transcript(
            table=self.table,
            hand=self.hand,
            dealer=self.dealer,
            server_commitment=self.server_commitment,
            seats=(entries[0], entries[1], entries[2], entries[3]),
            pattern=self.pattern,
            pack=self.pack,
            server_seed=self._server_seed if with_server_seed else None,
            beacon=self.beacon,
        )
