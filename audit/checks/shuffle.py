"""SHUFFLE_MISMATCH: a hand's commit-reveal transcript must open and give its deal, and
bind each seat's seed to the player the record seats there.

The record's ``players`` and the identities in a transcript (``seats.X.player``) must
agree: a seed committed in another player's name does not prove this player's deal. A
disagreement is a finding of the hand (not a refusal of the record: the transcript is
evidence like the rest, and the other hands are still audited). A transcript that
binds no identity (``player`` "") and a record without ``players`` are not compared.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from audit.checks import AuditContext
from audit.checks.findings import Finding
from audit.record.codec import hand_to_json
from audit.rules.cards import Seat

__all__ = ["check", "hand_findings", "player_mismatch"]


def check(ctx: AuditContext) -> list[Finding]:
    out: list[Finding] = []
    # A voided deal's transcript may be partial (a seed never revealed): it is checked
    # from the log (shuffle.void.verify_void), not against a deal.
    players = ctx.record.players or {}
    pattern = ctx.record.ruleset.deal_pattern
    for hand in ctx.record.hands:
        if hand.shuffle is not None and hand.void is None:
            out += hand_findings(hand.number, hand_to_json(hand), players, pattern)
    return out


def hand_findings(
    number: int, hand: dict[str, Any], players: Mapping[str, str], pattern: Sequence[int]
) -> list[Finding]:
    """The SHUFFLE_MISMATCH findings of hand ``number`` (its JSON, ``shuffle`` included):
    a seat whose transcript binds another player than ``players`` seats there, then the
    first problem :func:`shuffle.verify.check_record_hand` finds. The native fast path
    calls it on the hands it found in order, and declines on any finding."""
    from shuffle.errors import FINDING, ShuffleError
    from shuffle.verify import check_record_hand

    out: list[Finding] = []
    differ = player_mismatch(players, hand["shuffle"])
    if differ:
        first = differ[0]
        out.append(
            Finding(
                "SHUFFLE_MISMATCH",
                f"hand {number}: shuffle.seats.{first['seat']}.player: the transcript binds "
                f"{first['seat']}'s seed to {first['transcript']!r}, but the record seats "
                f"{first['record']!r} there (players.{first['seat']})"
                + (f"; {len(differ) - 1} more seat(s) differ" if len(differ) > 1 else ""),
                hand=number,
                seat=Seat.parse(first["seat"]),
                evidence={
                    "code": "SHUFFLE_MISMATCH",
                    "path": f"seats.{first['seat']}.player",
                    "seats": differ,
                },
            )
        )
    try:
        check_record_hand(hand, pattern)
    except ShuffleError as exc:
        out.append(
            Finding(
                FINDING,
                f"hand {number}: {exc.message}",
                hand=number,
                evidence={"code": exc.code, **exc.details},
            )
        )
    return out


def player_mismatch(
    players: Mapping[str, str], transcript: Mapping[str, Any]
) -> list[dict[str, str]]:
    """The seats where the record's ``players`` and the transcript's ``seats.X.player``
    both name someone, and not the same one: ``[{"seat", "record", "transcript"}]``."""
    seats = transcript.get("seats")
    if not isinstance(seats, Mapping):
        return []  # a malformed transcript: check_record_hand names the problem
    out = []
    for seat in ("N", "E", "S", "W"):
        entry = seats.get(seat)
        bound = entry.get("player") if isinstance(entry, Mapping) else None
        named = players.get(seat)
        if isinstance(bound, str) and bound and isinstance(named, str) and named != bound:
            out.append({"seat": seat, "record": named, "transcript": bound})
    return out
