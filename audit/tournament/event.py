"""The records of one event played over the table, read and checked as one.

A director hands in every table's records (files or folders). Each is a valid
cayenne-record/1 (else :class:`audit.errors.RecordError`, naming the JSON path); all
must name the same ``event`` and carry a ``round`` and a ``table``, and every seat a
player's name, since a pair is the two players seated N and S, or E and W, by name
(else :class:`EventError`, naming the record and the field). Hands with ``board`` make
a pairs duplicate event; records without make a rubber round robin; the two do not mix.
One table plays one record a round, and a pair sits at one table a round.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from audit.errors import RecordError
from audit.record.codec import load_record
from audit.rules.model import Record
from audit.tournament.errors import EventError

__all__ = ["DUPLICATE", "ROUND_ROBIN", "Event", "Pair", "TableRecord", "read_event"]

DUPLICATE = "pairs-duplicate"
ROUND_ROBIN = "rubber-round-robin"

Pair = tuple[str, str]
"""A partnership: the names seated N and S, or E and W, in that order."""


@dataclass(frozen=True, slots=True)
class TableRecord:
    """One table's record of one round."""

    source: str
    """Where it came from (a file name), for messages."""
    doc: dict[str, Any]
    record: Record
    round: int
    table: str
    ns: Pair
    ew: Pair

    @property
    def key(self) -> tuple[int, str, str]:
        """The order records are taken in, whatever order they arrived in."""
        return (self.round, _table_key(self.table), self.source)


def _table_key(table: str) -> str:
    return table.zfill(12) if table.isdigit() else table


@dataclass(frozen=True, slots=True)
class Event:
    name: str
    kind: str
    """:data:`DUPLICATE` or :data:`ROUND_ROBIN`."""
    tables: tuple[TableRecord, ...]
    """Sorted by round, then table."""


def read_event(docs: Sequence[tuple[str, Any]]) -> Event:
    """Check ``(source, JSON document)`` pairs are the records of one event."""
    if not docs:
        raise EventError("", "", "no records given")
    tables = [_table_record(source, doc) for source, doc in docs]
    tables.sort(key=lambda t: t.key)
    name = tables[0].doc["event"]
    for t in tables:
        if t.doc["event"] != name:
            raise EventError(t.source, "event", f"{t.doc['event']!r} is not {name!r}")
    kinds = {k for k in (_kind(t) for t in tables) if k is not None}
    if len(kinds) > 1:
        raise EventError(
            "", "hands[].board", "some records hold duplicate boards and others do not"
        )
    kind = kinds.pop() if kinds else ROUND_ROBIN
    seen: dict[tuple[int, str], str] = {}
    seated: dict[tuple[int, Pair], str] = {}
    for t in tables:
        where = (t.round, t.table)
        if where in seen:
            raise EventError(
                t.source, "table", f"round {t.round} table {t.table} is also {seen[where]}"
            )
        seen[where] = t.source
        for pair in (t.ns, t.ew):
            if (t.round, pair) in seated:
                raise EventError(
                    t.source,
                    "players",
                    f"{pair[0]} and {pair[1]} also play round {t.round} in "
                    f"{seated[(t.round, pair)]}",
                )
            seated[(t.round, pair)] = t.source
    return Event(name=name, kind=kind, tables=tuple(tables))


def _kind(t: TableRecord) -> str | None:
    boards = {h.board is not None for h in t.record.hands}
    if len(boards) > 1:
        raise EventError(t.source, "hands[].board", "some hands carry a board and others not")
    if not boards:
        return None
    return DUPLICATE if boards.pop() else ROUND_ROBIN


def _table_record(source: str, doc: Any) -> TableRecord:
    try:
        record = load_record(doc)
    except RecordError as exc:
        raise RecordError(f"{source}: {exc.path}" if exc.path else source, exc.problem) from None
    for field in ("event", "round", "table"):
        if field not in record.meta:
            raise EventError(source, field, "is required in a tournament record")
    players = record.players or {}
    missing = [s for s in "NESW" if not players.get(s)]
    if missing:
        raise EventError(source, f"players.{missing[0]}", "every seat needs a player's name")
    return TableRecord(
        source=source,
        doc=doc,
        record=record,
        round=record.meta["round"],
        table=record.meta["table"],
        ns=(players["N"], players["S"]),
        ew=(players["E"], players["W"]),
    )
