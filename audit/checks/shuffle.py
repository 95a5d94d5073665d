"""SHUFFLE_MISMATCH: a hand's commit-reveal transcript must open and give its deal, and
bind each seat's seed to the player the record seats there.

The record's ``players`` and the identities in a transcript (``seats.X.player``) must
agree: a seed committed in another player's name does not prove this player's deal. A
disagreement is a finding of the hand (not a refusal of the record: the transcript is
evidence like the rest, and the other hands are still audited). A transcript that
binds no identity (``player`` "") and a record without ``players`` are not compared.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from audit.checks import AuditContext
from audit.checks.findings import Finding
from audit.record.codec import hand_to_json
from audit.rules.cards import Seat

__all__ = ["check", "player_mismatch"]


def check(ctx: AuditContext) -> list[Finding]:
    out: list[Finding] = []
    # A voided deal's transcript may be partial (a seed never revealed): it is checked
    # from the log (shuffle.void.verify_void), not against a deal.
    hands = [h for h in ctx.record.hands if h.shuffle is not None and h.void is None]
    if not hands:
        return out
    from shuffle.errors import FINDING, ShuffleError
    from shuffle.verify import check_record_hand

    players = ctx.record.players or {}
    for hand in hands:
        assert hand.shuffle is not None
        differ = player_mismatch(players, hand.shuffle)
        if differ:
            first = differ[0]
            out.append(
                Finding(
                    "SHUFFLE_MISMATCH",
                    f"hand {hand.number}: shuffle.seats.{first['seat']}.player: the transcript binds "
                    f"{first['seat']}'s seed to {first['transcript']!r}, but the record seats "
                    f"{first['record']!r} there (players.{first['seat']})"
                    + (f"; {len(differ) - 1} more seat(s) differ" if len(differ) > 1 else ""),
                    hand=hand.number,
                    seat=Seat.parse(first["seat"]),
                    evidence={
                        "code": "SHUFFLE_MISMATCH",
                        "path": f"seats.{first['seat']}.player",
                        "seats": differ,
                    },
                )
            )
        obj: dict[str, Any] = hand_to_json(hand)
        try:
            check_record_hand(obj, ctx.record.ruleset.deal_pattern)
        except ShuffleError as exc:
            out.append(
                Finding(
                    FINDING,
                    f"hand {hand.number}: {exc.message}",
                    hand=hand.number,
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
