"""SCORE_MISMATCH: each hand's claim against the rules applied to the score before it.

The score the players had recorded before a hand (their previous claim, or the true
score where they claimed nothing) is the starting point, so one slip is reported
once, where it happened, with the expected and the claimed values; later hands that
correctly build on the slip are not reported again.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

from audit.checks import AuditContext
from audit.checks.findings import Finding
from audit.checks.score_reason import amount_text, explain_mismatch
from audit.rules.model import Score
from audit.rules.scoring import GAMES_TO_WIN, score_hand
from audit.rules.sitting import hand_facts

__all__ = ["check"]


def _differences(expected: Score, claimed: Score) -> list[str]:
    fields = []
    if expected.points != claimed.points:
        fields.append("points")
    if claimed.has_games and expected.games != claimed.games:
        fields.append("games")
    if claimed.has_bonuses and Counter(expected.bonuses) != Counter(claimed.bonuses):
        fields.append("bonuses")
    return fields


def check(ctx: AuditContext) -> list[Finding]:
    record = ctx.record
    start = record.start
    points = start.points if start else (0, 0)
    games = start.games if start else (0, 0)
    out: list[Finding] = []
    true = ctx.true_scores
    in_step = true is not None  # the players' score so far equals the true score
    for i, (hand, outcome) in enumerate(zip(record.hands, ctx.outcomes, strict=True)):
        claimed = hand.claimed
        if hand.void is not None:
            continue  # a voided deal scores nothing: the score goes on from the hand before
        if not outcome.replayable:
            if claimed is not None:
                points = claimed.points
            in_step = False
            continue
        known = true[i] if (in_step and true is not None) else None
        if known is not None:
            expected = known
        else:
            facts = hand_facts(hand, outcome, record.ruleset)
            assert facts is not None
            expected = score_hand(points, games, facts, record.ruleset)
        if claimed is None:
            points, games = expected.score.points, expected.games_after
            continue
        diff = _differences(expected.score, claimed)
        if diff:
            in_step = False
            exp: dict[str, Any] = expected.score.to_json()
            got: dict[str, Any] = claimed.to_json()
            parts = []
            if "points" in diff:
                parts.append(
                    f"marker {got['points']['NS']}-{got['points']['EW']} claimed, "
                    f"{exp['points']['NS']}-{exp['points']['EW']} by the rules"
                )
            if "games" in diff:
                parts.append(
                    f"games {_games(got['games'])} claimed, {_games(exp['games'])} by the rules"
                )
            if "bonuses" in diff:
                parts.append(
                    f"bonuses {_bonuses(got['bonuses'])} claimed, "
                    f"{_bonuses(exp['bonuses'])} by the rules"
                )
            facts = hand_facts(hand, outcome, record.ruleset)
            assert facts is not None
            reason = explain_mismatch(points, games, facts, record.ruleset, claimed)
            why = [x for x in (amount_text(expected.score, claimed), reason and reason.text) if x]
            out.append(
                Finding(
                    "SCORE_MISMATCH",
                    f"hand {hand.number}: "
                    + (": ".join(why) + " (" if why else "")
                    + "; ".join(parts)
                    + (")" if why else ""),
                    hand=hand.number,
                    evidence={
                        "fields": diff,
                        "expected": exp,
                        "claimed": got,
                        "before": {
                            "points": {"NS": points[0], "EW": points[1]},
                            "games": {"NS": games[0], "EW": games[1]},
                        },
                        "slip": None if reason is None else reason.slip,
                        "reason": None if reason is None else reason.text,
                    },
                )
            )
        # carry on from what the players recorded
        g = [games[0], games[1]]
        for won in claimed.games if claimed.has_games else expected.score.games:
            g[won.side] += 1
            if g[won.side] >= GAMES_TO_WIN:
                g = [0, 0]
        points, games = claimed.points, (g[0], g[1])
    return out


def _games(games: list[dict[str, Any]]) -> str:
    return "[" + ", ".join(f"{g['side']} {g['value']}" for g in games) + "]"


def _bonuses(bonuses: list[dict[str, Any]]) -> str:
    return "[" + ", ".join(f"{b['side']} {b['kind']} {b['points']}" for b in bonuses) + "]"
