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

An abort at any point (:meth:`Ceremony.abort`) makes the hand void: it returns a
:class:`VoidHand` to be logged with the partial transcript, and the ceremony cannot
continue. A void hand's number is used up; the next deal is a new ceremony with a new
hand number and a fresh server seed, never a silent re-deal of the same one.
"""

from __future__ import annotations

import secrets
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from enum import Enum
from typing import Any

from audit.rules.cards import Seat
from audit.rules.deal import DEFAULT_PATTERN, check_pattern
from shuffle import kdf
from shuffle.errors import CeremonyError, CommitmentMismatchError, ShuffleFormatError
from shuffle.protocol import SEAT_ORDER, Beacon, Derived, SeatEntry, Transcript, derive, new_seed
from shuffle.verify import ct_equal

__all__ = ["Ceremony", "Phase", "VoidHand"]


class Phase(Enum):
    COMMITTING = "committing"
    REVEALING = "revealing"
    DEALT = "dealt"
    CLOSED = "closed"
    VOID = "void"


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
        self._expect(Phase.COMMITTING, f"seats.{Seat(seat).name}.commitment")
        if len(commitment) != 32:
            raise ShuffleFormatError(f"seats.{seat.name}.commitment", "must be 32 bytes")
        if seat in self._commitments:
            raise CeremonyError(f"seats.{seat.name}.commitment", "this seat has already committed")
        self._commitments[seat] = bytes(commitment)
        if len(self._commitments) == 4:
            self.phase = Phase.REVEALING

    def reveal(self, seat: Seat, seed: bytes) -> None:
        """Accept ``seat``'s seed if it opens the seat's commitment; raise otherwise."""
        path = f"seats.{Seat(seat).name}.seed"
        self._expect(Phase.REVEALING, path)
        if not kdf.SEAT_SEED_MIN <= len(seed) <= kdf.SEAT_SEED_MAX:
            raise ShuffleFormatError(path, "a seat's seed is 16..64 bytes")
        if seat in self._seeds:
            raise CeremonyError(path, "this seat has already revealed")
        opened = kdf.seat_commitment(seed, seat, self.players[seat], self.table, self.hand)
        if not ct_equal(opened, self._commitments[seat]):
            raise CommitmentMismatchError(path, f"the seed does not open {seat.name}'s commitment")
        self._seeds[seat] = bytes(seed)

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
        self._expect(Phase.REVEALING, "seats")
        missing = self.missing()
        if missing:
            raise CeremonyError("seats", f"cannot deal before {', '.join(missing)}")
        self._derived = derive(self._transcript(with_server_seed=True))
        self.phase = Phase.DEALT
        return self._derived

    def finish(self) -> Transcript:
        """End of hand: reveal the server's seed; the complete transcript, outcome written in."""
        self._expect(Phase.DEALT, "server.seed")
        self.phase = Phase.CLOSED
        return self._transcript(with_server_seed=True).with_outcome()

    def abort(self, reason: str) -> VoidHand:
        """Stop the ceremony: the hand is void (log the result; never re-deal it silently)."""
        if self.phase in (Phase.CLOSED, Phase.VOID):
            raise CeremonyError("", f"the ceremony is already {self.phase.value}")
        phase = self.phase
        missing = tuple(self.missing())
        self.phase = Phase.VOID
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

    def _expect(self, phase: Phase, path: str) -> None:
        if self.phase is not phase:
            raise CeremonyError(
                path, f"not allowed while the ceremony is {self.phase.value} (needs {phase.value})"
            )
