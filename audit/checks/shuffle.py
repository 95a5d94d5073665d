"""SHUFFLE_MISMATCH: a hand's commit-reveal transcript must open and give its deal."""

from __future__ import annotations

from typing import Any

from audit.checks import AuditContext
from audit.checks.findings import Finding
from audit.record.codec import hand_to_json


def check(ctx: AuditContext) -> list[Finding]:
    out: list[Finding] = []
    hands = [h for h in ctx.record.hands if h.shuffle is not None]
    if not hands:
        return out
    from shuffle.errors import FINDING, ShuffleError
    from shuffle.verify import check_record_hand

    for hand in hands:
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
