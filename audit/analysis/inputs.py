"""The hands to judge, read from records, an event's records or an online event's
certificate bundle.

Every record is read as the auditor reads it (:func:`audit.record.codec.load_record`); a
bundle (``cayenne-tournament-certificate-bundle/1``) holds one record per hand played.
The bundle is not verified here (``fairplay tournament verify`` does that with the log
key); its hands are named by the event's id, table and hand, whatever the file's name. A hand is judged when it was played out by the rules: a contract, thirteen tricks of
four cards and no irregularity; the others are listed as skipped, with the reason.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from typing import Any

from audit.analysis.judge import HandPlay
from audit.errors import RecordError
from audit.record.codec import load_record
from audit.rules.cards import Seat, mask_of
from audit.rules.model import HandRecord, Record
from audit.rules.replay import contract_of, replay_hand

__all__ = ["BUNDLE_FORMAT", "event_hands", "hands_of"]

BUNDLE_FORMAT = "cayenne-tournament-certificate-bundle/1"


def _label(event: str, table: Any, hand: Any) -> str:
    return f"{event} table {table} hand {hand}"


def _event_id(bundle: dict[str, Any]) -> str | None:
    cert = bundle.get("certificate")
    event = cert.get("event") if isinstance(cert, dict) else None
    tid = event.get("id") if isinstance(event, dict) else None
    return tid if isinstance(tid, str) and tid else None


def _records(source: str, doc: Any) -> Iterator[tuple[str, Any]]:
    if isinstance(doc, dict) and doc.get("format") == BUNDLE_FORMAT:
        items = doc.get("records")
        if not isinstance(items, list):
            raise RecordError(source, "records: a bundle's records must be a list")
        # named by the event, not the file: the service's analysis of the event is the
        # same document (api/analysis.py, event_hands)
        name = _event_id(doc) or source
        for n, item in enumerate(items):
            if not isinstance(item, dict) or not isinstance(item.get("record"), dict):
                raise RecordError(source, f"records[{n}].record: must be an object")
            yield _label(name, item.get("table", "?"), item.get("hand", n)), item["record"]
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
    return _hands(item for source, doc in docs for item in _records(source, doc))


def event_hands(
    tid: str, records: Iterable[tuple[str, int, Any]]
) -> tuple[list[HandPlay], list[str]]:
    """The hands of an online event's finished records, ``(table, hand, record)`` in its
    certificate bundle's order, named as :func:`hands_of` names them in its bundle: the
    same hands, so the same analysis."""
    return _hands((_label(tid, table, hand), record) for table, hand, record in records)


def _hands(items: Iterable[tuple[str, Any]]) -> tuple[list[HandPlay], list[str]]:
    plays: list[HandPlay] = []
    skipped: list[str] = []
    for where, raw in items:
        try:
            record = load_record(raw)
        except RecordError as exc:
            raise RecordError(f"{where}: {exc.path}" if exc.path else where, exc.problem) from None
        for i, hand in enumerate(record.hands):
            got = _play(where, record, hand.number if hand.number else i + 1, hand)
            if isinstance(got, str):
                skipped.append(f"{where} hand {i + 1}: {got}")
            else:
                plays.append(got)
    return plays, skipped
