"""Findings: what an audit reports, with a stable code, a severity and evidence.

Every code is documented in docs/findings.md; ``CODES`` is the registry the
report, the docs test and the HTTP service read.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from audit.rules.cards import Seat

__all__ = ["AFTER_THE_HAND", "CODES", "Finding"]

ERROR, WARNING, INFO = "error", "warning", "info"

CODES: dict[str, tuple[str, str]] = {
    "DEAL_INVALID": (ERROR, "a hand without exactly 13 cards, a card dealt twice, a card missing"),
    "MISDEAL": (
        ERROR,
        "the deal does not follow from dealt_order by the packet pattern from the dealer's left",
    ),
    "WRONG_DEALER": (
        ERROR,
        "the deal did not pass to the left, or the first dealer did not cut lowest",
    ),
    "PACK_NOT_ALTERNATED": (WARNING, "the same pack was dealt in two hands running"),
    "CALL_OUT_OF_TURN": (
        ERROR,
        "the trump made by anyone but the dealer, or by his partner without the dealer's pass",
    ),
    "LEAD_OUT_OF_TURN": (
        ERROR,
        "a trick led by anyone but eldest hand (first trick) or the last trick's winner",
    ),
    "CARD_NOT_HELD": (ERROR, "a card played that the player did not hold, or played twice"),
    "REVOKE": (ERROR, "a player did not follow suit while holding a card of the suit led"),
    "ACE_HIGH_INVALID": (ERROR, "an ace declared high outside a nullo, or a non-ace so declared"),
    "REVOKE_CORRECTED": (
        INFO,
        "a revoke corrected before it was established (the trick's corrected): no penalty",
    ),
    "CORRECTION_INVALID": (
        WARNING,
        "a corrected revoke the cards cannot show (card not held, or no revoke)",
    ),
    "PENALTY_WITHOUT_REVOKE": (
        WARNING,
        "a revoke penalty recorded where the play shows no revoke by that seat",
    ),
    "HAND_NOT_REPLAYABLE": (
        ERROR,
        "a hand whose structure makes play impossible (a trick of three cards, no contract)",
    ),
    "CLAIM_INVALID": (
        ERROR,
        "a claim of more tricks than were left, or not agreed by both adversaries",
    ),
    "TRICKS_OUT_OF_ORDER": (
        ERROR,
        "tricks gathered in another order than won, by the wrong side, missing or twice",
    ),
    "STACKED_DEAL": (
        ERROR,
        "the deal keeps the structure of the tricks last gathered from that pack (p < alpha; "
        "an error below the deal's share of alpha for the record, a warning above)",
    ),
    "STACKED_DEALER": (
        ERROR,
        "one dealer's deals, taken together, keep the gathered structure (combined p < alpha; "
        "an error below the dealer's share of alpha for the record, a warning above)",
    ),
    "FOULED_BOARD": (
        ERROR,
        "a duplicate board whose deal, dealer, pack or cayenne card differs between tables",
    ),
    "STACKED_DEALER_EVENT": (
        ERROR,
        "one player's deals across the records of an event, pooled, keep the gathered structure",
    ),
    "SHUFFLE_MISMATCH": (
        ERROR,
        "a shuffle proof that does not open its commitment, or a deal or cayenne card that does not follow",
    ),
    "SCORE_MISMATCH": (
        ERROR,
        "a claimed score that differs from the rules applied to the score recorded before it",
    ),
    "LOG_SIGNATURE_INVALID": (ERROR, "a signed hand log entry whose signature does not verify"),
    "LOG_CHAIN_BROKEN": (ERROR, "a signed hand log whose hash chain does not hold"),
    "LOG_INCONSISTENT": (ERROR, "a hand log whose Merkle proofs or checkpoints do not hold"),
}


AFTER_THE_HAND = frozenset({"SCORE_MISMATCH"})
"""Codes listed after every other finding of their hand: they follow from the others."""


@dataclass(slots=True)
class Finding:
    code: str
    message: str
    hand: int | None = None
    trick: int | None = None
    seat: Seat | None = None
    evidence: dict[str, Any] = field(default_factory=dict)
    severity: str = ""

    def __post_init__(self) -> None:
        if not self.severity:
            self.severity = CODES[self.code][0]

    def to_json(self) -> dict[str, Any]:
        obj: dict[str, Any] = {"code": self.code, "severity": self.severity, "hand": self.hand}
        if self.trick is not None:
            obj["trick"] = self.trick
        if self.seat is not None:
            obj["seat"] = self.seat.name
        obj["message"] = self.message
        obj["evidence"] = self.evidence
        return obj

    def sort_key(self) -> tuple[int, int, int, int]:
        """By hand, then trick; a SCORE_MISMATCH after everything else in its hand (the
        irregularity that caused it comes first)."""
        last = 1 if self.code in AFTER_THE_HAND else 0
        return (self.hand or 10**9, last, self.trick or 0, 0 if self.severity == ERROR else 1)
