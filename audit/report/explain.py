"""Words for a report's score explanations, shared by the text and HTML reports.

Everything here reads the JSON report (``hands[].score``, ``claimed``, ``explanation``,
findings' evidence), so a report read back from a file renders as the auditor's own.
"""

from __future__ import annotations

from typing import Any

__all__ = ["SIDE_LABEL", "claim_agrees", "claim_line", "next_deal_pointer", "score_words"]

SIDE_LABEL = {"NS": "N-S", "EW": "E-W"}


def score_words(score: dict[str, Any]) -> str:
    """``marker N-S 6, E-W 0; games N-S 2; bonuses none`` (games, bonuses only if given)."""
    pts = score["points"]
    parts = [f"marker N-S {pts['NS']}, E-W {pts['EW']}"]
    if "games" in score:
        games = ", ".join(f"{SIDE_LABEL[g['side']]} {g['value']}" for g in score["games"])
        parts.append(f"games {games or 'none'}")
    if "bonuses" in score:
        bonuses = ", ".join(
            f"{SIDE_LABEL[b['side']]} {b['kind'].replace('_', ' ')} {b['points']}"
            for b in score["bonuses"]
        )
        parts.append(f"bonuses {bonuses or 'none'}")
    return "; ".join(parts)


def claim_agrees(hand: dict[str, Any]) -> bool | None:
    """Whether the hand's claim is the true score (``None``: nothing claimed or not scored).

    Games are compared only when claimed, bonuses in any order, as SCORE_MISMATCH does."""
    claimed, score = hand.get("claimed"), hand.get("score")
    if claimed is None or score is None:
        return None
    if claimed["points"] != score["points"]:
        return False
    if "games" in claimed and claimed["games"] != score["games"]:
        return False
    return "bonuses" not in claimed or _bonus_keys(claimed) == _bonus_keys(score)


def _bonus_keys(score: dict[str, Any]) -> list[tuple[str, str, int]]:
    return sorted((b["side"], b["kind"], b["points"]) for b in score["bonuses"])


def ended_by_claim(hand: dict[str, Any]) -> str | None:
    """A report hand's ``claim`` in words (docs/record-format.md, "A claim of the remaining
    tricks"), or ``None`` for a hand played out."""
    claim = hand.get("claim")
    if not claim:
        return None
    agreed = " and ".join(claim["agreed"])
    return (
        f"ended by a claim: {claim['claimer']}'s side took {claim['tricks']} of the tricks "
        f"not played, agreed by {agreed}; the cards not played are not tricks"
    )


def claim_line(hand: dict[str, Any]) -> str | None:
    """The claimed score beside the true one, in a sentence; ``None`` when none was claimed."""
    agrees = claim_agrees(hand)
    if agrees is None:
        if hand.get("claimed") is not None:
            return f"claimed: {score_words(hand['claimed'])} (the hand could not be scored)"
        return None
    if agrees:
        return f"claimed: {score_words(hand['claimed'])} (as the rules give)"
    return (
        f"claimed: {score_words(hand['claimed'])}; the rules give "
        f"{score_words(hand['score'])} (SCORE_MISMATCH)"
    )


def next_deal_pointer(finding: dict[str, Any]) -> str | None:
    """For TRICKS_OUT_OF_ORDER: where the next deal from that pack was tested for stacking."""
    nxt = finding.get("evidence", {}).get("next_deal")
    if not nxt:
        return None
    p = nxt.get("p_value")
    if p is None:
        return f"the next deal from this pack, hand {nxt['hand']}, could not be tested for stacking"
    return (
        f"see the stacking test of hand {nxt['hand']}, the next deal from this pack (p = {p:.3g})"
    )
