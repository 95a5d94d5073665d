"""Scoring a whole record: from replayed hands to the marker and the rubbers' sheets."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from audit.rules.explain import RevokeAt
from audit.rules.model import HandRecord, Record
from audit.rules.replay import HandOutcome, replay_hand
from audit.rules.ruleset import Ruleset
from audit.rules.scoring import HandFacts, HandScore, Sheet

__all__ = ["ScoredRecord", "hand_facts", "new_sheet", "score_record"]


def hand_facts(hand: HandRecord, outcome: HandOutcome, ruleset: Ruleset) -> HandFacts | None:
    """The scorer's view of a replayed hand; ``None`` when it could not be replayed."""
    if not outcome.replayable or outcome.contract is None:
        return None
    chosen = {(p.trick, p.seat): p.option for p in hand.penalties}
    revokes = tuple(
        (seat.side, chosen.get((trick, seat), ruleset.default_penalty))
        for trick, seat in outcome.revokes
    )
    at = tuple(RevokeAt(trick, seat, (trick, seat) in chosen) for trick, seat in outcome.revokes)
    return HandFacts(
        contract=outcome.contract,
        unit=outcome.unit,
        tricks=(outcome.tricks[0], outcome.tricks[1]),
        honours=outcome.honours,
        revokes=revokes,
        revokes_at=at,
    )


@dataclass(slots=True)
class ScoredRecord:
    outcomes: list[HandOutcome]
    scores: list[HandScore | None]
    """The true score of each hand (``None`` for a hand that cannot be replayed)."""
    sheet: Sheet


def new_sheet(record: Record) -> Sheet:
    start = record.start
    if start is None:
        return Sheet(ruleset=record.ruleset)
    return Sheet(start.points, start.games, start.sheet, record.ruleset)


def score_record(record: Record, outcomes: Sequence[HandOutcome] | None = None) -> ScoredRecord:
    """Replay (unless ``outcomes`` are given) and score every hand from the record's start."""
    outs = list(outcomes) if outcomes is not None else [replay_hand(h) for h in record.hands]
    sheet = new_sheet(record)
    scores: list[HandScore | None] = []
    for hand, outcome in zip(record.hands, outs, strict=True):
        facts = hand_facts(hand, outcome, record.ruleset)
        scores.append(None if facts is None else sheet.score(facts, hand.number))
    return ScoredRecord(outcomes=outs, scores=scores, sheet=sheet)
