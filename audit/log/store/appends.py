"""Verified, batched, atomic appends to the RFC 6962 tree.

Every event is shape-checked, its Ed25519 signature verified and its key checked
*before* the writer lock is taken; then, under the lock, the hand chains are checked
(``seq`` dense from 0, ``prev`` = hash of the previous event of the hand), and the
entries and the new complete-subtree hashes are inserted in one transaction. On
PostgreSQL that is one autocommitted statement per batch (``log_append_batch``, see
:mod:`audit.log.migrations`), so the cluster-wide lock (``LOCK TABLE ... SHARE ROW
EXCLUSIVE``) is never held across a round trip to this process; on SQLite
(``BEGIN IMMEDIATE``) this process does the same steps, with the tree's right edge
(frontier) cached, or re-read as O(log n) nodes when another process appended. A batch
is all or nothing. SQLite runs in WAL mode with ``synchronous=FULL``, so an
acknowledged append survives a crash or ``kill -9``.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping, Sequence
from typing import Any

from audit.log import merkle
from audit.log.backends import nid
from audit.log.errors import EventError, LogChainBroken, LogInconsistent, LogSignatureInvalid
from audit.log.events import canonical_json, check_event, verify_event
from audit.log.keys import Verifier
from audit.log.schemas import admit_event
from audit.log.store.actors import LogActors
from audit.log.store.core import _Refused

__all__ = ["LogAppends"]


class LogAppends(LogActors):
    """Appends, and the hand chains' heads they check against."""

    def append(
        self,
        events: Sequence[Mapping[str, Any]],
        *,
        keys: Mapping[str, Verifier | str] | None = None,
    ) -> list[int]:
        """Verify and append a batch of signed events atomically; return their indices.

        Raises :class:`LogSignatureInvalid` (bad signature, unknown key),
        :class:`LogChainBroken` (wrong ``seq`` or ``prev``), or ``LOG_EVENT_INVALID``
        (malformed event, wrong origin); on any error nothing is appended.
        """
        prepared: list[tuple[dict[str, Any], bytes, str]] = []
        for i, raw in enumerate(events):
            ev = check_event(raw, encodable=False)  # encoding is checked just below
            if ev["origin"] != self.origin:
                raise EventError(f"events[{i}].origin: {ev['origin']!r} is not {self.origin!r}")
            leaf = canonical_json(ev)
            admit_event(ev, root=f"events[{i}]", canonical=leaf)
            given = keys.get(ev["actor"]) if keys else None
            verify_event(ev, given, _checked=True)
            prepared.append((ev, leaf, hashlib.sha256(leaf).hexdigest()))
        if not prepared:
            return []
        with self._lock:
            if self.require_registered_keys:
                # Outside the writer lock: the key table is append-only, so a key
                # registered once stays registered.
                with self._db_errors():
                    for ev, _, _ in prepared:
                        if (keys and ev["actor"] in keys) or self._key_allowed(
                            ev["actor"], ev["key"]
                        ):
                            continue
                        raise LogSignatureInvalid(
                            f"key {ev['key'].split('+')[0]}+{ev['key'].split('+')[1]} is not "
                            f"registered for actor {ev['actor']!r}"
                        )
            if self.append_in_server:
                size = self._append_in_server(prepared)
            else:
                size = self._append_here(prepared)
        return [size + i for i in range(len(prepared))]

    @staticmethod
    def _chain_error(
        offset: int, ev: Mapping[str, Any], want_seq: int, *, seq_wrong: bool
    ) -> LogChainBroken:
        where = f"table {ev['table']!r} hand {ev['hand']!r}"
        if seq_wrong:
            return LogChainBroken(
                f"events[{offset}]: {where}: seq {ev['seq']} but the next is {want_seq}"
            )
        return LogChainBroken(
            f"events[{offset}]: {where}: prev does not match the hand's last event"
        )

    def _append_in_server(self, prepared: Sequence[tuple[dict[str, Any], bytes, str]]) -> int:
        """Sequence and integrate a batch in one autocommitted statement (PostgreSQL).

        ``log_append_batch`` (migration 2) takes the writer lock, checks the chains,
        inserts the entries and the tree's new nodes and returns the first index; the
        lock is released at that statement's commit, so it is never held across a round
        trip to this process. A refused batch is rolled back whole.
        """
        columns = (
            [ev["table"] for ev, _, _ in prepared],
            [ev["hand"] for ev, _, _ in prepared],
            [ev["seq"] for ev, _, _ in prepared],
            [ev["prev"] for ev, _, _ in prepared],
            [ev["actor"] for ev, _, _ in prepared],
            [ev["type"] for ev, _, _ in prepared],
            [ehash for _, _, ehash in prepared],
            [leaf for _, leaf, _ in prepared],
        )
        try:
            with self._db_errors(refusals=True):
                rows = self._db.query(
                    "SELECT log_append_batch(?::text[], ?::text[], ?::bigint[], ?::text[],"
                    " ?::text[], ?::text[], ?::text[], ?::bytea[])",
                    columns,
                )
        except _Refused as refused:
            if refused.sqlstate == "FPTRE":
                raise LogInconsistent(refused.message) from None
            offset, want_seq = (int(x) for x in refused.detail.split())
            raise self._chain_error(
                offset, prepared[offset][0], want_seq, seq_wrong=refused.sqlstate == "FPSEQ"
            ) from None
        return int(rows[0][0])

    def _append_here(self, prepared: Sequence[tuple[dict[str, Any], bytes, str]]) -> int:
        """Sequence and integrate a batch from this process, in one transaction holding
        the writer lock (SQLite, whose lock is local to the machine; and PostgreSQL when
        ``append_in_server`` is off). The same steps as ``log_append_batch``."""
        with self._write():
            # One round trip for the tree's size and every hand's head.
            size, heads = self._size_and_heads({(ev["table"], ev["hand"]) for ev, _, _ in prepared})
            frontier = self._load_frontier(size)
            entry_rows: list[tuple[Any, ...]] = []
            node_rows: list[tuple[int, bytes]] = []
            for offset, (ev, leaf, ehash) in enumerate(prepared):
                key = (ev["table"], ev["hand"])
                head = heads.get(key)
                want_seq, want_prev = (0, None) if head is None else (head[0] + 1, head[1])
                if ev["seq"] != want_seq or ev["prev"] != want_prev:
                    raise self._chain_error(offset, ev, want_seq, seq_wrong=ev["seq"] != want_seq)
                heads[key] = (ev["seq"], ehash)
                idx = size + offset
                entry_rows.append(
                    (idx, ev["table"], ev["hand"], ev["seq"], ev["actor"], ev["type"], ehash, leaf)
                )
                for level, nidx, h in frontier.append(merkle.leaf_hash(leaf)):
                    node_rows.append((nid(level, nidx), h))
            self._db.executemany(
                "INSERT INTO log_entries (idx, table_id, hand_id, seq, actor, type, event_hash,"
                " leaf) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                entry_rows,
            )
            self._db.executemany("INSERT INTO log_nodes (nid, hash) VALUES (?, ?)", node_rows)
        self._frontier = frontier
        return size

    def _load_frontier(self, size: int) -> merkle.Frontier:
        cached = self._frontier
        if cached is not None and cached.size == size:
            return merkle.Frontier(cached.size, list(cached.nodes))
        return merkle.Frontier.from_nodes(size, self._nodes)

    def _size_and_heads(
        self, hands: set[tuple[str, str]]
    ) -> tuple[int, dict[tuple[str, str], tuple[int, str]]]:
        """The number of entries, and ``(seq, event_hash)`` of the last event of each hand
        in ``hands`` that has one, in one query."""
        keys = sorted(hands)
        marks = ", ".join("(?, ?)" for _ in keys)
        rows = self._db.query(
            "SELECT 0, '', '', COALESCE(MAX(idx), -1), '' FROM log_entries UNION ALL"
            " SELECT 1, e.table_id, e.hand_id, e.seq, e.event_hash FROM log_entries e"
            f" WHERE (e.table_id, e.hand_id) IN (VALUES {marks}) AND e.seq ="
            " (SELECT MAX(x.seq) FROM log_entries x"
            " WHERE x.table_id = e.table_id AND x.hand_id = e.hand_id)",
            [v for k in keys for v in k],
        )
        size = 0
        heads: dict[tuple[str, str], tuple[int, str]] = {}
        for kind, table, hand, seq, ehash in rows:
            if int(kind) == 0:
                size = int(seq) + 1
            else:
                heads[(str(table), str(hand))] = (int(seq), str(ehash))
        return size, heads

    def _hand_head(self, table: str, hand: str) -> tuple[int, str] | None:
        rows = self._db.query(
            "SELECT seq, event_hash FROM log_entries WHERE table_id = ? AND hand_id = ?"
            " ORDER BY seq DESC LIMIT 1",
            (table, hand),
        )
        return None if not rows else (int(rows[0][0]), str(rows[0][1]))

    def next_link(self, table: str, hand: str | int) -> tuple[int, str | None]:
        """``(seq, prev)`` for the next event of a hand: ``(0, None)`` for a new hand."""
        with self._lock:
            head = self._hand_head(table, str(hand))
        return (0, None) if head is None else (head[0] + 1, head[1])
