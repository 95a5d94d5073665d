"""The commit-reveal shuffle ceremony of one online hand, on top of ``shuffle``.

The server commits to a fresh seed when the hand opens; each seat commits to its own
seed (bound to seat, player, table and hand); when the four commitments are in, each
seat reveals its seed, checked in constant time against its commitment; when the four
seeds are in, the deal and the cayenne card follow (the server knows them, nobody else
does); when the hand ends the server reveals its seed and the transcript is complete, so
anyone can recompute the deal (docs/shuffle-protocol.md). Until then the log holds only
commitments and the seats' seeds, never a card.

The ceremony's phases are :mod:`shuffle.ceremony`'s machine (:func:`shuffle.ceremony.advance`),
the one the CLI runs: a hand's row keeps its phase as text (``committing``, ``revealing``,
then the rules' ``calling``, ``playing``, ``over``, or ``void``), and :func:`step`,
:func:`dealt` and :func:`voided` take the machine's steps on it, answering its
refusals as the service's ``WRONG_PHASE``.
"""

from __future__ import annotations

import hmac
from collections.abc import Collection, Mapping, Sequence

from api.errors import BadRequest, WrongPhase
from audit.rules.cards import Seat
from shuffle import kdf
from shuffle.ceremony import OutOfPhaseError, Phase, RepeatedStepError, Step, advance
from shuffle.protocol import Derived, SeatEntry, Transcript, derive, new_seed

SEAT_NAMES = tuple(s.name for s in Seat)

__all__ = ["Derived", "derive", "dealt", "in_ceremony", "new_seed", "step", "voided"]

PHASES: dict[str, Phase] = {
    "committing": Phase.COMMITTING,
    "revealing": Phase.REVEALING,
    "calling": Phase.DEALT,
    "playing": Phase.DEALT,
    "over": Phase.CLOSED,
    "void": Phase.VOID,
}
"""A hand row's phase, as the ceremony's machine sees it (the rules' phases are all dealt)."""

CLOSED_TO = {
    Step.COMMIT: "commitments are closed",
    Step.REVEAL: "seeds are revealed after all four commit",
}
"""Why the service refuses a seat's step outside its phase."""


def in_ceremony(hand_phase: str) -> bool:
    """Whether a hand is still in its ceremony (it can be voided; it has no deal yet)."""
    return PHASES[hand_phase] in (Phase.COMMITTING, Phase.REVEALING)


def step(hand_phase: str, kind: str, seat: Seat, done: Collection[str]) -> str:
    """The hand's phase once ``seat`` commits or reveals (``kind``), ``done`` naming the
    seats that already have; :class:`WrongPhase` if the ceremony refuses the step."""
    action = Step(kind)
    try:
        after = advance(PHASES[hand_phase], action, seat, {Seat[s] for s in done})
    except OutOfPhaseError:
        raise WrongPhase(f"the hand is {hand_phase}; {CLOSED_TO[action]}") from None
    except RepeatedStepError as exc:
        raise WrongPhase(f"{seat.name} has already {exc.done}") from None
    return after.value


def dealt(hand_phase: str) -> str:
    """The hand's phase once its four seeds are in and the deal derived: the calls."""
    advance(PHASES[hand_phase], Step.DEAL)
    return "calling"


def voided(hand_phase: str) -> str:
    """The hand's phase once its ceremony is voided; :class:`WrongPhase` once it is dealt."""
    try:
        return advance(PHASES[hand_phase], Step.ABORT).value
    except OutOfPhaseError:
        raise WrongPhase(f"the hand is {hand_phase}; only an unfinished ceremony is void") from None


class CommitmentMismatch(BadRequest):
    """A revealed seed that does not open the seat's commitment."""

    status = 422
    code = "COMMITMENT_MISMATCH"


class CommitmentCopied(BadRequest):
    """A seat's commitment equal to another seat's or the server's (the Keybase flip bug:
    a copy would let a seat mirror another's seed, or stall the ceremony into a void)."""

    status = 422
    code = "COMMITMENT_COPIED"


def check_fresh_commitment(
    commitment_hex: str, seat: Seat, others: Mapping[str, str], server_commitment_hex: str
) -> None:
    """Raise :class:`CommitmentCopied` if ``commitment_hex`` is already on the table.

    Every honest commitment is bound to its own seat and player, so two equal ones mean a
    copy. The values are public, so plain comparison leaks nothing.
    """
    for other, value in others.items():
        if other != seat.name and value == commitment_hex:
            raise CommitmentCopied(
                f"{seat.name}'s commitment is a copy of {other}'s; commit to your own seed",
                details={"path": "event.body.commitment", "copy_of": other},
            )
    if commitment_hex == server_commitment_hex:
        raise CommitmentCopied(
            f"{seat.name}'s commitment is a copy of the server's; commit to your own seed",
            details={"path": "event.body.commitment", "copy_of": "server"},
        )


def server_commitment(seed: bytes, table: str, hand: int) -> str:
    return kdf.server_commitment(seed, table, hand).hex()


def seat_commitment(seed: bytes, seat: Seat, player_id: str, table: str, hand: int) -> str:
    """The commitment a seat publishes (used by bots and tests)."""
    return kdf.seat_commitment(seed, seat, player_id, table, hand).hex()


def parse_hex(value: object, field: str, *, min_len: int, max_len: int) -> bytes:
    if not isinstance(value, str):
        raise BadRequest(f"{field}: expected hex text", details={"path": field})
    try:
        data = bytes.fromhex(value)
    except ValueError:
        raise BadRequest(f"{field}: not hex", details={"path": field}) from None
    if not min_len <= len(data) <= max_len or value != data.hex():
        raise BadRequest(
            f"{field}: expected {min_len}..{max_len} bytes in lowercase hex",
            details={"path": field},
        )
    return data


def parse_commitment(value: object, field: str = "event.body.commitment") -> str:
    return parse_hex(value, field, min_len=32, max_len=32).hex()


def parse_seed(value: object, field: str = "event.body.seed") -> bytes:
    return parse_hex(value, field, min_len=kdf.SEAT_SEED_MIN, max_len=kdf.SEAT_SEED_MAX)


def check_reveal(
    seed: bytes, commitment_hex: str, seat: Seat, player_id: str, table: str, hand: int
) -> None:
    """Raise :class:`CommitmentMismatch` unless ``seed`` opens the seat's commitment."""
    expected = kdf.seat_commitment(seed, seat, player_id, table, hand)
    if not hmac.compare_digest(expected, bytes.fromhex(commitment_hex)):
        raise CommitmentMismatch(
            f"the seed does not open {seat.name}'s commitment", details={"path": "event.body.seed"}
        )


def transcript(
    *,
    table: str,
    hand: int,
    pack: int,
    dealer: Seat,
    pattern: Sequence[int],
    players: Mapping[Seat, str],
    server_commitment_hex: str,
    commitments: Mapping[str, str],
    seeds: Mapping[str, str],
    server_seed_hex: str,
) -> Transcript:
    """The hand's transcript with every seed in (the server's included)."""
    entries = tuple(
        SeatEntry(players[s], bytes.fromhex(commitments[s.name]), bytes.fromhex(seeds[s.name]))
        for s in Seat
    )
    return Transcript(
        table=table,
        hand=hand,
        dealer=dealer,
        server_commitment=bytes.fromhex(server_commitment_hex),
        seats=(entries[0], entries[1], entries[2], entries[3]),
        pattern=tuple(pattern),
        pack=pack,
        server_seed=bytes.fromhex(server_seed_hex),
    )
