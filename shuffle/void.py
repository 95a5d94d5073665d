"""A void hand's partial transcript: built from the log, and checked (docs/shuffle-protocol.md,
section 10, "A void hand").

An abandoned ceremony is logged as a ``void`` event that publishes the server's seed.
Its transcript is partial: a seat that never committed has no ``commitment``, a seat
that never revealed no ``seed``. What it can prove, and :func:`verify_void` checks:
the published server seed opens the server commitment of ``open`` (so the server did
not publish another seed than the one it committed to), each seed revealed opens its
seat's commitment, and the void's ``missing`` seats are exactly those that had not
committed (phase ``committing``) or revealed (phase ``revealing``). If every seed is in
(which a consistent void never has), the deal that was stopped is derived and returned.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from shuffle import kdf
from shuffle.errors import CommitmentMismatchError, ShuffleFormatError, ShuffleIncompleteError
from shuffle.protocol import SEAT_ORDER, transcript_from_json
from shuffle.verify import Result, check_commitments, ct_equal, verify

__all__ = ["VoidCheck", "transcript_from_events", "verify_void"]

_PLACEHOLDER = "00" * 32
"""Stands for a commitment never made, so the rest of the transcript parses as usual."""


@dataclass(frozen=True, slots=True)
class VoidCheck:
    """What a void hand's partial transcript proves."""

    revealed: tuple[str, ...]
    """The seats whose seeds were revealed and open their commitments."""
    missing: tuple[str, ...]
    """The seats the ceremony still waited for."""
    deal: Result | None
    """The stopped deal, when every seed was revealed (never, in a consistent void)."""


def transcript_from_events(
    table: str, hand: int, events: Sequence[Mapping[str, Any]]
) -> dict[str, Any]:
    """The partial transcript of one hand from its log events (``open``, ``commit``,
    ``reveal``, ``void``, each with ``type``, ``actor`` and ``body``), as section 9 writes
    it: a seat's ``commitment`` and ``seed`` only when logged, the server's seed from
    ``void`` (or ``server_reveal``)."""
    opening = next((e for e in events if e.get("type") == "open"), None)
    if opening is None:
        raise ShuffleFormatError("", "the hand's events have no open event")
    body = opening["body"]
    players = body.get("seats") or {}
    seat_of = {p: s for s, p in players.items() if isinstance(p, str)}
    seats: dict[str, dict[str, Any]] = {
        s.name: {"player": players.get(s.name, "")} for s in SEAT_ORDER
    }
    server: dict[str, Any] = {"commitment": body["server_commitment"]}
    for e in events:
        kind, who, b = e.get("type"), e.get("actor"), e.get("body") or {}
        seat = seat_of.get(who) if isinstance(who, str) else None
        if kind == "commit" and seat:
            seats[seat]["commitment"] = b["commitment"]
        elif kind == "reveal" and seat:
            seats[seat]["seed"] = b["seed"]
        elif kind == "void" and who == "server":
            server["seed"] = b["server_seed"]
        elif kind == "server_reveal" and who == "server":
            server["seed"] = b["seed"]
    ruleset = body.get("ruleset") or {}
    return {
        "protocol": "cayenne-shuffle/1",
        "table": table,
        "hand": hand,
        "dealer": body["dealer"],
        "pack": body["pack"],
        "pattern": ruleset.get("deal_pattern", [4, 4, 5]),
        "server": server,
        "seats": seats,
    }


def verify_void(
    partial: Mapping[str, Any], *, phase: str | None = None, missing: Sequence[str] | None = None
) -> VoidCheck:
    """Check a void hand's partial transcript; ``phase`` and ``missing`` are the ``void``
    event's, compared when given. Raises a :class:`~shuffle.errors.ShuffleError` naming
    the field."""
    if not isinstance(partial, Mapping) or not isinstance(partial.get("seats"), Mapping):
        raise ShuffleFormatError("seats", "must be an object")
    filled = dict(partial)
    seats = {}
    uncommitted = []
    for seat in SEAT_ORDER:
        entry = partial["seats"].get(seat.name)
        if not isinstance(entry, Mapping):
            raise ShuffleFormatError(f"seats.{seat.name}", "must be an object")
        entry = dict(entry)
        if "commitment" not in entry:
            if "seed" in entry:
                raise ShuffleFormatError(
                    f"seats.{seat.name}.seed", "a seed revealed without a commitment"
                )
            uncommitted.append(seat.name)
            entry["commitment"] = _PLACEHOLDER
        seats[seat.name] = entry
    filled["seats"] = seats
    t = transcript_from_json(filled)
    if t.server_seed is None:
        raise ShuffleIncompleteError(
            "server.seed", "a void hand's transcript must publish the server's seed"
        )
    if not ct_equal(kdf.server_commitment(t.server_seed, t.table, t.hand), t.server_commitment):
        raise CommitmentMismatchError(
            "server.seed", "the published server seed does not open the server commitment"
        )
    revealed = []
    for seat in SEAT_ORDER:
        e = t.seats[seat]
        if e.seed is None:
            continue
        if not ct_equal(kdf.seat_commitment(e.seed, seat, e.player, t.table, t.hand), e.commitment):
            raise CommitmentMismatchError(
                f"seats.{seat.name}.seed",
                f"{seat.name}'s seed does not open {seat.name}'s commitment",
            )
        revealed.append(seat.name)
    waiting = (
        tuple(uncommitted)
        if phase == "committing"
        else tuple(s.name for s in SEAT_ORDER if s.name not in revealed)
    )
    if missing is not None and tuple(missing) != waiting:
        raise CommitmentMismatchError(
            "missing",
            f"the void names {list(missing)} as missing, the log shows {list(waiting)} "
            f"had not {'committed' if phase == 'committing' else 'revealed'}",
        )
    deal = None
    if len(revealed) == 4:
        check_commitments(t)
        deal = verify(t)
    return VoidCheck(revealed=tuple(revealed), missing=waiting, deal=deal)
