"""The log read back: its size and root, its leaves, and events by entry, hand or table."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from audit.log import merkle
from audit.log.backends import as_bytes
from audit.log.errors import LogInconsistent
from audit.log.events import parse_event
from audit.log.store.core import LogCore

__all__ = ["LogReads"]


class LogReads(LogCore):
    """Reads of the stored entries and tree; none takes the writer lock."""

    def size(self) -> int:
        """The number of entries."""
        with self._lock:
            return self._size()

    def root(self, size: int | None = None) -> bytes:
        """The root hash of the tree of ``size`` entries (default: all), O(log n) reads."""
        with self._lock:
            current = self._size()
            size = current if size is None else size
            if not 0 <= size <= current:
                raise LogInconsistent(f"the log has {current} entries, not {size}")
            return merkle.range_hash(0, size, self._nodes(merkle.root_nodes(size)))

    def leaves(self, start: int, end: int) -> list[bytes]:
        """The stored leaf bytes (canonical JSON events) of entries ``[start, end)``."""
        with self._lock:
            rows = self._db.query(
                "SELECT idx, leaf FROM log_entries WHERE idx >= ? AND idx < ? ORDER BY idx",
                (start, end),
            )
        return [as_bytes(r[1]) for r in rows]

    def entries(self, start: int, end: int) -> list[dict[str, Any]]:
        """The events of entries ``[start, end)``."""
        return [
            parse_event(leaf, entry=start + i) for i, leaf in enumerate(self.leaves(start, end))
        ]

    def hand_events(self, table: str, hand: str | int) -> list[dict[str, Any]]:
        """``[{"index": i, "event": {...}}, ...]`` of one hand, in ``seq`` order."""
        with self._lock:
            rows = self._db.query(
                "SELECT idx, leaf FROM log_entries WHERE table_id = ? AND hand_id = ? ORDER BY seq",
                (table, str(hand)),
            )
        return [
            {"index": int(i), "event": parse_event(as_bytes(leaf), entry=int(i))}
            for i, leaf in rows
        ]

    def first_events(self, table: str, prefix: str) -> list[dict[str, Any]]:
        """``[{"index": i, "event": {...}}, ...]``: the first event (``seq`` 0) of every
        hand of ``table`` whose id starts with ``prefix``, in log order."""
        with self._lock:
            rows = self._db.query(
                "SELECT idx, leaf FROM log_entries WHERE table_id = ? AND seq = 0"
                " AND substr(hand_id, 1, ?) = ? ORDER BY idx",
                (table, len(prefix), prefix),
            )
        return [
            {"index": int(i), "event": parse_event(as_bytes(leaf), entry=int(i))}
            for i, leaf in rows
        ]

    def events_at(self, table: str, prefix: str, seq: int) -> list[dict[str, Any]]:
        """``[{"index": i, "event": {...}}, ...]``: the event ``seq`` of every hand of
        ``table`` whose id starts with ``prefix``, in log order."""
        with self._lock:
            rows = self._db.query(
                "SELECT idx, leaf FROM log_entries WHERE table_id = ? AND seq = ?"
                " AND substr(hand_id, 1, ?) = ? ORDER BY idx",
                (table, seq, len(prefix), prefix),
            )
        return [
            {"index": int(i), "event": parse_event(as_bytes(leaf), entry=int(i))}
            for i, leaf in rows
        ]

    def count_first_events(self, table: str, prefix: str) -> int:
        """How many hands of ``table`` whose id starts with ``prefix`` the log holds (their
        first events counted in the index, none read)."""
        with self._lock:
            rows = self._db.query(
                "SELECT COUNT(*) FROM log_entries WHERE table_id = ? AND seq = 0"
                " AND substr(hand_id, 1, ?) = ?",
                (table, len(prefix), prefix),
            )
        return int(rows[0][0])

    def table_events(self, tables: Sequence[str], *, chunk: int = 100) -> list[dict[str, Any]]:
        """``[{"index": i, "event": {...}}, ...]`` of every hand of the given tables, in log
        order: one query per ``chunk`` tables rather than one per hand (a tournament's
        certificate reads every hand of hundreds of tables). The lock is taken per query,
        so the appends of other threads go on in between."""
        wanted = sorted(set(tables))
        out: list[dict[str, Any]] = []
        for start in range(0, len(wanted), chunk):
            part = wanted[start : start + chunk]
            marks = ", ".join("?" * len(part))
            with self._lock:
                rows = self._db.query(
                    f"SELECT idx, leaf FROM log_entries WHERE table_id IN ({marks})", part
                )
            out += [
                {"index": int(i), "event": parse_event(as_bytes(leaf), entry=int(i))}
                for i, leaf in rows
            ]
        out.sort(key=lambda e: int(e["index"]))
        return out
