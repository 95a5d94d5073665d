"""Irregularities of the deal's cards, the calls and the play, as met by the replay.

DEAL_INVALID, CALL_OUT_OF_TURN, LEAD_OUT_OF_TURN, CARD_NOT_HELD, REVOKE,
ACE_HIGH_INVALID and HAND_NOT_REPLAYABLE come from :func:`audit.rules.replay.replay_hand`;
this check also flags recorded penalties for revokes the play does not show.
"""

from __future__ import annotations

from audit.checks import AuditContext
from audit.checks.findings import Finding

__all__ = ["check"]


def check(ctx: AuditContext) -> list[Finding]:
    out: list[Finding] = []
    for hand, outcome in zip(ctx.record.hands, ctx.outcomes, strict=True):
        for irr in outcome.irregularities:
            out.append(
                Finding(
                    irr.code,
                    f"hand {hand.number}: {irr.message}",
                    hand=hand.number,
                    trick=irr.trick,
                    seat=irr.seat,
                    evidence=dict(irr.evidence),
                )
            )
        if outcome.replayable:
            revokes = set(outcome.revokes)
            for p in hand.penalties:
                if (p.trick, p.seat) not in revokes:
                    out.append(
                        Finding(
                            "PENALTY_WITHOUT_REVOKE",
                            f"hand {hand.number}: a {p.option} penalty is recorded for a revoke by "
                            f"{p.seat.name} in trick {p.trick}, but the play shows none there",
                            hand=hand.number,
                            trick=p.trick,
                            seat=p.seat,
                            evidence={"option": p.option},
                        )
                    )
    return out
