"""The auditor: replay every hand once, run every check, and build the report.

The report is cayenne-audit-report/1 (docs/audit-report.md): a verdict, the
findings sorted by hand and trick, each hand's true score and stacking test, and
every rubber begun. ``hands[].score`` and ``rubbers`` are the scores by the rules from
the record's start; claims are judged separately (SCORE_MISMATCH) and shown beside them
(``hands[].claimed``), and ``hands[].explanation`` is the scorer's own account of each
score (docs/audit-report.md, "Extensions").
"""

from __future__ import annotations

from typing import Any

from audit.checks import AuditContext
from audit.checks import deal as deal_check
from audit.checks import dealer as dealer_check
from audit.checks import gathering as gathering_check
from audit.checks import play as play_check
from audit.checks import score as score_check
from audit.checks import shuffle as shuffle_check
from audit.checks import stacking as stacking_check
from audit.checks.findings import ERROR, Finding
from audit.errors import RecordError
from audit.native import audit_fast
from audit.record.codec import load_record
from audit.report import REPORT_FORMAT
from audit.rules.explain import claim_json, explanation_json
from audit.rules.model import Record
from audit.rules.replay import replay_hand
from audit.rules.sitting import score_record

__all__ = [
    "CHECKS",
    "DEFAULT_ALPHA",
    "audit_document",
    "audit_record",
]

NO_HANDS = "the record holds no hand: it is not a game, and there is nothing to audit"
DEFAULT_ALPHA = 0.001
CHECKS = (
    play_check,
    deal_check,
    dealer_check,
    gathering_check,
    score_check,
    stacking_check,
    shuffle_check,
)


def audit_record(record: Record, *, alpha: float = DEFAULT_ALPHA) -> dict[str, Any]:
    """Audit a typed record; returns the report as JSON-ready data."""
    if not 0 < alpha < 1:
        raise ValueError("alpha must be between 0 and 1")
    if not record.hands:
        raise RecordError("hands", NO_HANDS)
    outcomes = [replay_hand(h) for h in record.hands]
    scored = score_record(record, outcomes)
    ctx = AuditContext(record=record, outcomes=outcomes, alpha=alpha, true_scores=scored.scores)
    findings: list[Finding] = []
    for check in CHECKS:
        findings += check.check(ctx)
    gathering_check.link_next_deal(findings, record, ctx.stacking)
    findings.sort(key=Finding.sort_key)
    hands = []
    for hand, outcome, score in zip(record.hands, outcomes, scored.scores, strict=True):
        h: dict[str, Any] = {"hand": hand.number}
        if hand.board is not None:
            h["board"] = hand.board
        if hand.void is not None:
            h["void"] = hand.void.to_json()
        h |= {
            "dealer": hand.dealer.name,
            "contract": None if outcome.contract is None else outcome.contract.text,
            "unit": outcome.unit if outcome.contract is not None else None,
            "tricks": {"NS": outcome.tricks[0], "EW": outcome.tricks[1]}
            if outcome.replayable
            else None,
            "score": None if score is None else score.score.to_json(),
        }
        if hand.claim is not None:
            h["claim"] = hand.claim.to_json()
        if hand.number in ctx.stacking:
            h["stacking"] = ctx.stacking[hand.number]
        if hand.claimed is not None:
            h["claimed"] = claim_json(hand.claimed)
        h["explanation"] = None if score is None else explanation_json(score.explanation)
        hands.append(h)
    verdict = "irregular" if any(f.severity == ERROR for f in findings) else "clean"
    return {
        "format": REPORT_FORMAT,
        "verdict": verdict,
        "alpha": alpha,
        "findings": [f.to_json() for f in findings],
        "hands": hands,
        "rubbers": scored.sheet.rubbers_json(),
    }


def audit_document(doc: Any, *, alpha: float = DEFAULT_ALPHA) -> dict[str, Any]:
    """Validate a cayenne-record/1 document (raising ``RecordError``) and audit it.

    A record in order takes the native fast path (:mod:`audit.native`) when it is
    built; the report is the same either way.
    """
    if not 0 < alpha < 1:
        raise ValueError("alpha must be between 0 and 1")
    if isinstance(doc, dict) and doc.get("hands") == []:
        raise RecordError("hands", NO_HANDS)
    report = audit_fast(doc, alpha)
    if report is not None:
        return report
    return audit_record(load_record(doc), alpha=alpha)
