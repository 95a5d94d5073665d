"""The hands to judge, read from records, an event's records or an online event's
certificate bundle.

Every record is read as the auditor reads it (:func:`audit.record.codec.load_record`); a
bundle (``cayenne-tournament-certificate-bundle/1``) holds one record per hand played.
The bundle is not verified here (``fairplay tournament verify`` does that with the log
key). A hand is judged when it was played out by the rules: a contract, thirteen tricks of
four cards and no irregularity; the others are listed as skipped, with the reason.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Any

from audit.analysis.judge import HandPlay
from audit.errors import RecordError
from audit.record.codec import load_record
from audit.rules.cards import Seat, mask_of
from audit.rules.model import HandRecord, Record
from audit.rules.replay import contract_of, replay_hand

__all__ = ["BUNDLE_FORMAT", "hands_of"]

BUNDLE_FORMAT = "cayenne-tournament-certificate-bundle/1"


def _records(source: str, doc: Any) -> Iterator[tuple[str, Any]]:
    if isinstance(doc, dict) and doc.get("format") == BUNDLE_FORMAT:
        items = doc.get("records")
        if not isinstance(items, list):
            raise RecordError(source, "records: a bundle's records must be a list")
        for n, item in enumerate(items):
            if not isinstance(item, dict) or not isinstance(item.get("record"), dict):
                raise RecordError(source, f"records[{n}].record: must be an object")
            yield (
                f"{source} table {item.get('table', '?')} hand {item.get('hand', n)}",
                item["record"],
            )
    else:
        yield source, doc


def _play(source: str, record: Record, number: int, hand: HandRecord) -> HandPlay | str:
    if hand.void is not None:
        return "void deal"
    contract = contract_of(hand)
    if contract is None:
        return "no contract"
    if len(hand.tricks) != 13 or any(len(t.cards) != 4 for t in hand.tricks):
        return "not played to the thirteenth trick"
    outcome = replay_hand(hand)
    if not outcome.replayable or outcome.irregularities:
        return "irregular play (fairplay audit names it)"
    players = record.players or {}
    ids = tuple(str(players.get(s.name) or f"{source}:{s.name}") for s in Seat)
    deal = tuple(mask_of(cards) for cards in hand.deal)
    moves = tuple(
        (card, bool(trick.ace_high) and card in (trick.ace_high or ()))
        for trick in hand.tricks
        for card in trick.cards
    )
    leader = hand.tricks[0].leader
    board = f"{leader.name}:" + ".".join(f"{m:013x}" for m in deal)
    return HandPlay(
        source=f"{source} hand {number}",
        board=board,
        contract=contract,
        leader=leader,
        players=(ids[0], ids[1], ids[2], ids[3]),
        deal=(deal[0], deal[1], deal[2], deal[3]),
        moves=moves,
    )


def hands_of(docs: Sequence[tuple[str, Any]]) -> tuple[list[HandPlay], list[str]]:
    """The hands of every record in ``docs`` (``(source, JSON document)`` pairs), and a
    note for each hand left out. A document that is not a record raises
    :class:`RecordError`, naming the source and the JSON path."""
    plays: list[HandPlay] = []
    skipped: list[str] = []
    for source, doc in docs:
        for where, raw in _records(source, doc):
            try:
                record = load_record(raw)
            except RecordError as exc:
                raise RecordError(
                    f"{where}: {exc.path}" if exc.path else where, exc.problem
                ) from None
            for i, hand in enumerate(record.hands):
                got = _play(where, record, hand.number if hand.number else i + 1, hand)
                if isinstance(got, str):
                    skipped.append(f"{where} hand {i + 1}: {got}")
                else:
                    plays.append(got)
    return plays, skipped
