"""The stored hand log: verified, batched, atomic appends to an RFC 6962 tree in SQL.

``open_log(url, origin, signer)`` opens (creating and migrating) a log in SQLite
(``sqlite:///path``, a plain path, or ``:memory:``) or PostgreSQL (``postgresql://...``;
an extra ``schema=NAME`` query parameter selects, and creates, a schema). Both use the
same schema (:mod:`audit.log.migrations`) and behave the same.

Appends: every event is shape-checked, its Ed25519 signature verified and its key
checked *before* the writer lock is taken; then, under the lock, the hand chains are
checked (``seq`` dense from 0, ``prev`` = hash of the previous event of the hand), and
the entries and the new complete-subtree hashes are inserted in one transaction. On
PostgreSQL that is one autocommitted statement per batch (``log_append_batch``, see
:mod:`audit.log.migrations`), so the cluster-wide lock (``LOCK TABLE ... SHARE ROW
EXCLUSIVE``) is never held across a round trip to this process; on SQLite
(``BEGIN IMMEDIATE``) this process does the same steps, with the tree's right edge
(frontier) cached, or re-read as O(log n) nodes when another process appended. A batch
is all or nothing. SQLite runs in WAL mode with ``synchronous=FULL``, so an
acknowledged append survives a crash or ``kill -9``.

Actors' keys: each event carries its signer's verifier key (``key``). The log accepts
it only if that key is registered for the event's ``actor`` (``register_key``), or is
given for that actor in the ``keys`` argument of ``append``. ``open_log(...,
require_registered_keys=False)`` accepts any key that verifies (for tests and demos).
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import os
import sqlite3
import threading
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from typing import Any

from audit.log import merkle
from audit.log.backends import NID_SHIFT, Backend, as_bytes, connect, migrate, nid
from audit.log.checkpoint import Checkpoint, format_tlog_proof
from audit.log.checkpoint import parse as parse_checkpoint
from audit.log.errors import (
    EventError,
    LogChainBroken,
    LogError,
    LogInconsistent,
    LogSignatureInvalid,
    StoreError,
)
from audit.log.events import canonical_json, check_event, parse_event, verify_event
from audit.log.keys import Signer, Verifier
from audit.log.note import parse as parse_note
from audit.log.note import verify as verify_note
from audit.log.schemas import admit_event

__all__ = ["NID_SHIFT", "Log", "as_bytes", "nid", "open_log"]

# --------------------------------------------------------------------------- the log

APPEND_ENV = "FAIRPLAY_LOG_APPEND"
"""``client`` makes a PostgreSQL log sequence from the process (the code SQLite runs)
instead of ``log_append_batch``: for the side-by-side benchmark and the cross-check tests."""


class _Refused(Exception):
    """The sequencer function refused a batch (SQLSTATE ``FP...``)."""

    def __init__(self, sqlstate: str, message: str, detail: str) -> None:
        super().__init__(message)
        self.sqlstate = sqlstate
        self.message = message
        self.detail = detail


class Log:
    """One hand log (one origin) in one database. Thread-safe; use one per process."""

    def __init__(
        self,
        db: Backend,
        origin: str,
        signer: Signer | None,
        *,
        require_registered_keys: bool = True,
        clock: Callable[[], float] = time.time,
        append_in_server: bool | None = None,
    ) -> None:
        self._db = db
        if append_in_server is None:
            append_in_server = os.environ.get(APPEND_ENV, "server") != "client"
        self.append_in_server = append_in_server and db.kind == "postgresql"
        """Appends run as one ``log_append_batch`` statement (PostgreSQL only)."""
        self.origin = origin
        self.signer = signer
        self.require_registered_keys = require_registered_keys
        self._clock = clock
        self._lock = threading.RLock()
        self._frontier: merkle.Frontier | None = None
        self._known_keys: set[tuple[str, str]] = set()
        self.verifier: Verifier | None = signer.verifier() if signer else None
        self._init_meta()

    @property
    def backend(self) -> str:
        """``"sqlite"`` or ``"postgresql"``."""
        return self._db.kind

    def _init_meta(self) -> None:
        with self._lock, self._write():
            meta = dict(self._db.query("SELECT name, value FROM log_meta"))
            if "origin" not in meta:
                self._db.execute(
                    "INSERT INTO log_meta (name, value) VALUES (?, ?)", ("origin", self.origin)
                )
            elif meta["origin"] != self.origin:
                raise StoreError(
                    f"this database holds the log {meta['origin']!r}, not {self.origin!r}"
                )
            if self.signer is not None:
                vkey = self.signer.verifier_key()
                if "verifier_key" not in meta:
                    self._db.execute(
                        "INSERT INTO log_meta (name, value) VALUES (?, ?)", ("verifier_key", vkey)
                    )
                elif meta["verifier_key"] != vkey:
                    raise StoreError(
                        f"the log is signed by {meta['verifier_key']}, not by the given key"
                    )
            elif "verifier_key" in meta:
                self.verifier = Verifier.from_text(meta["verifier_key"])

    @contextmanager
    def _write(self) -> Iterator[None]:
        """One transaction holding the writer lock; database errors become StoreError."""
        try:
            with self._db_errors(), self._db.write():
                yield
        except BaseException:
            self._frontier = None
            raise

    @contextmanager
    def _db_errors(self, *, refusals: bool = False) -> Iterator[None]:
        """Turn a driver's error into :class:`StoreError` (with ``refusals``, the
        sequencer's refusals, SQLSTATE ``FP...``, into :class:`_Refused`)."""
        try:
            yield
        except LogError:
            raise
        except (sqlite3.Error, Exception) as exc:
            if isinstance(exc, sqlite3.Error) or type(exc).__module__.startswith("psycopg"):
                state = str(getattr(exc, "sqlstate", "") or "")
                if refusals and state.startswith("FP"):
                    diag = getattr(exc, "diag", None)
                    raise _Refused(
                        state,
                        str(getattr(diag, "message_primary", "") or ""),
                        str(getattr(diag, "message_detail", "") or ""),
                    ) from exc
                raise StoreError(f"log database error: {exc}") from exc
            raise

    def close(self) -> None:
        with self._lock:
            self._db.close()

    def __enter__(self) -> Log:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # ------------------------------------------------------------------ keys

    def register_key(self, actor: str, key: Verifier | str) -> None:
        """Allow ``key`` (a verifier or its text) to sign events of ``actor``."""
        text = key.text() if isinstance(key, Verifier) else Verifier.from_text(key).text()
        with self._lock, self._write():
            if not self._db.query(
                "SELECT 1 FROM log_actor_keys WHERE actor = ? AND key_text = ?", (actor, text)
            ):
                self._db.execute(
                    "INSERT INTO log_actor_keys (actor, key_text, registered_at) VALUES (?, ?, ?)",
                    (actor, text, self._clock()),
                )
        self._known_keys.add((actor, text))

    def actor_keys(self, actor: str) -> list[str]:
        """The verifier keys registered for ``actor``."""
        with self._lock:
            rows = self._db.query(
                "SELECT key_text FROM log_actor_keys WHERE actor = ? ORDER BY registered_at",
                (actor,),
            )
        return [r[0] for r in rows]

    def _key_allowed(self, actor: str, key_text: str) -> bool:
        if (actor, key_text) in self._known_keys:
            return True
        rows = self._db.query(
            "SELECT 1 FROM log_actor_keys WHERE actor = ? AND key_text = ?", (actor, key_text)
        )
        if rows:
            self._known_keys.add((actor, key_text))
        return bool(rows)

    # ------------------------------------------------------------------ appends

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

    def _size(self) -> int:
        row = self._db.query("SELECT MAX(idx) FROM log_entries")
        return 0 if row[0][0] is None else int(row[0][0]) + 1

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

    # ------------------------------------------------------------------ reads

    def _nodes(self, wanted: Sequence[merkle.Node]) -> dict[merkle.Node, bytes]:
        if not wanted:
            return {}
        keys = {nid(lvl, idx): (lvl, idx) for lvl, idx in wanted}
        found: dict[merkle.Node, bytes] = {}
        ids = list(keys)
        for start in range(0, len(ids), 500):
            chunk = ids[start : start + 500]
            marks = ", ".join("?" * len(chunk))
            for k, h in self._db.query(
                f"SELECT nid, hash FROM log_nodes WHERE nid IN ({marks})", chunk
            ):
                found[keys[int(k)]] = as_bytes(h)
        missing = [n for n in wanted if n not in found]
        if missing:
            lvl, idx = missing[0]
            raise LogInconsistent(f"stored tree is missing node level {lvl} index {idx}")
        return found

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

    def inclusion_proof(self, index: int, size: int | None = None) -> list[bytes]:
        """The audit path of entry ``index`` in the tree of ``size`` (default: current)."""
        with self._lock:
            size = self._size() if size is None else size
            self._check_size(size)
            ranges = merkle.inclusion_ranges(index, size)
            return merkle.proof_from_nodes(ranges, self._nodes(merkle.nodes_for(ranges)))

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

    def inclusion_proofs(
        self, indices: Sequence[int], size: int, *, batch: int = 4096
    ) -> Iterator[tuple[int, list[bytes]]]:
        """``(index, audit path)`` of every entry in ``indices`` (ascending) in the tree of
        ``size``: the stored nodes the paths of ``batch`` neighbouring entries need are read
        together (neighbours share most of them), instead of two queries per entry."""
        with self._lock:
            self._check_size(size)
        for start in range(0, len(indices), batch):
            part = indices[start : start + batch]
            plans = [(i, merkle.inclusion_ranges(i, size)) for i in part]
            shared = {r: b"" for _, ranges in plans for r in ranges}  # upper ranges repeat
            wanted = merkle.nodes_for(shared)
            nodes: dict[merkle.Node, bytes] = {}
            for at in range(0, len(wanted), 500):  # the lock per query, not per batch
                with self._lock:
                    nodes |= self._nodes(wanted[at : at + 500])
            for r in shared:
                shared[r] = merkle.range_hash(r[0], r[1], nodes)
            for i, ranges in plans:
                yield i, [shared[r] for r in ranges]

    def consistency_proof(self, size1: int, size2: int | None = None) -> list[bytes]:
        """The consistency proof from the tree of ``size1`` to that of ``size2``."""
        with self._lock:
            size2 = self._size() if size2 is None else size2
            self._check_size(size2)
            if size1 == size2:
                return []
            ranges = merkle.consistency_ranges(size1, size2)
            return merkle.proof_from_nodes(ranges, self._nodes(merkle.nodes_for(ranges)))

    def _check_size(self, size: int) -> None:
        current = self._size()
        if not 0 <= size <= current:
            raise LogInconsistent(f"the log has {current} entries; no tree of size {size}")

    # ------------------------------------------------------------------ checkpoints

    def checkpoint(self, *, min_interval: float = 0.0) -> str:
        """A signed checkpoint note of the current tree.

        Schedule-stable: when the tree has not grown, or the latest checkpoint is younger
        than ``min_interval`` seconds, the latest stored checkpoint is returned unchanged,
        so witnesses and clients see the very same note.
        """
        if self.signer is None:
            raise StoreError("this log was opened without its signing key")
        with self._lock:
            latest = self._latest()
            size = self._size()
            if latest is not None and (
                latest[0] == size or self._clock() - latest[2] < min_interval
            ):
                return latest[1]
            return self._issue(size)

    def checkpoint_at(self, size: int) -> str:
        """A signed checkpoint for an earlier tree size (stored if it is new)."""
        if self.signer is None:
            raise StoreError("this log was opened without its signing key")
        with self._lock:
            self._check_size(size)
            return self._issue(size)

    def _issue(self, size: int) -> str:
        assert self.signer is not None
        root = self.root(size)
        text = Checkpoint(self.origin, size, root).sign(self.signer)
        # The tree of ``size`` never changes, so this needs no writer lock: the first
        # checkpoint stored for a size stays, and every issuer returns that one.
        with self._db_errors():
            self._db.execute(
                "INSERT INTO log_checkpoints (size, root, note, issued_at) VALUES (?, ?, ?, ?)"
                " ON CONFLICT (size) DO NOTHING",
                (size, root, text, self._clock()),
            )
            rows = self._db.query("SELECT note FROM log_checkpoints WHERE size = ?", (size,))
        return str(rows[0][0])

    def _latest(self) -> tuple[int, str, float] | None:
        rows = self._db.query(
            "SELECT size, note, issued_at FROM log_checkpoints ORDER BY size DESC LIMIT 1"
        )
        return None if not rows else (int(rows[0][0]), str(rows[0][1]), float(rows[0][2]))

    def latest_checkpoint(self) -> str | None:
        """The most recent stored checkpoint note, or None."""
        with self._lock:
            latest = self._latest()
        return None if latest is None else latest[1]

    def checkpoints(self) -> list[str]:
        """Every stored checkpoint note, by increasing size."""
        with self._lock:
            return [
                str(r[0]) for r in self._db.query("SELECT note FROM log_checkpoints ORDER BY size")
            ]

    def checkpoint_of(self, size: int) -> str | None:
        """The stored checkpoint of exactly ``size`` entries, or None (signs nothing)."""
        with self._lock:
            rows = self._db.query("SELECT note FROM log_checkpoints WHERE size = ?", (size,))
        return None if not rows else str(rows[0][0])

    def first_checkpoint_covering(self, size: int) -> str | None:
        """The smallest stored checkpoint whose tree has at least ``size`` entries."""
        with self._lock:
            rows = self._db.query(
                "SELECT note FROM log_checkpoints WHERE size >= ? ORDER BY size LIMIT 1", (size,)
            )
        return None if not rows else str(rows[0][0])

    def verify_checkpoint(self, note_text: str) -> Checkpoint:
        """Check a (saved) checkpoint against this log: signature, origin, size and root.

        A checkpoint larger than the log means the log was truncated or rolled back;
        a root that differs from the stored tree's means the history was rewritten.
        Both raise :class:`LogInconsistent`.
        """
        verifier = self.verifier
        if verifier is None:
            raise StoreError("the log's verifier key is unknown")
        cp = parse_checkpoint(verify_note(note_text, verifier))
        if cp.origin != self.origin:
            raise LogInconsistent(f"checkpoint is for {cp.origin!r}, not {self.origin!r}")
        size = self.size()
        if cp.size > size:
            raise LogInconsistent(
                f"rollback: the log has {size} entries but a checkpoint it signed has {cp.size}"
            )
        if not hmac.compare_digest(self.root(cp.size), cp.root):
            raise LogInconsistent(
                f"the log's tree of size {cp.size} does not have the checkpoint's root"
            )
        return cp

    def _serving_checkpoint(self, note_text: str | None) -> tuple[str, Checkpoint]:
        if note_text is None:
            note_text = self.checkpoint() if self.signer else self.latest_checkpoint()
        if note_text is None:
            raise StoreError("no checkpoint has been issued yet")
        return note_text, parse_checkpoint(parse_note(note_text)[0])

    def serve_inclusion(self, index: int, checkpoint: str | None = None) -> dict[str, Any]:
        """An inclusion proof as JSON, naming the checkpoint it was computed against.

        ``checkpoint`` defaults to the current one (issued if needed). Returns
        ``{"index", "size", "leaf_hash", "proof": [base64...], "checkpoint": note}``.
        """
        note_text, cp = self._serving_checkpoint(checkpoint)
        leaves = self.leaves(index, index + 1)
        if not leaves or index >= cp.size:
            raise LogInconsistent(f"entry {index} is not in the checkpoint of size {cp.size}")
        proof = self.inclusion_proof(index, cp.size)
        return {
            "index": index,
            "size": cp.size,
            "leaf_hash": base64.b64encode(merkle.leaf_hash(leaves[0])).decode(),
            "proof": [base64.b64encode(h).decode() for h in proof],
            "checkpoint": note_text,
        }

    def serve_consistency(self, size1: int, checkpoint: str | None = None) -> dict[str, Any]:
        """A consistency proof from ``size1`` to a checkpoint, as JSON naming that checkpoint."""
        note_text, cp = self._serving_checkpoint(checkpoint)
        proof = self.consistency_proof(size1, cp.size)
        return {
            "size1": size1,
            "size2": cp.size,
            "proof": [base64.b64encode(h).decode() for h in proof],
            "checkpoint": note_text,
        }

    def tlog_proof(self, index: int, checkpoint: str | None = None) -> str:
        """Entry ``index``'s inclusion as a c2sp.org/tlog-proof naming its checkpoint."""
        served = self.serve_inclusion(index, checkpoint)
        proof = [base64.b64decode(h) for h in served["proof"]]
        return format_tlog_proof(index, proof, served["checkpoint"])

    def tree_hash_b64(self, size: int | None = None) -> str:
        return base64.b64encode(self.root(size)).decode()


def open_log(
    url: str,
    origin: str | None = None,
    signer: Signer | None = None,
    *,
    require_registered_keys: bool = True,
    clock: Callable[[], float] = time.time,
    append_in_server: bool | None = None,
) -> Log:
    """Open (create, migrate) the log at ``url``; see the module docstring.

    ``append_in_server`` (PostgreSQL): sequence each batch in the database, in one
    statement (the default), or from this process; ``None`` reads
    ``FAIRPLAY_LOG_APPEND`` (``client`` for the latter).

    ``origin`` may be omitted to open an existing log under its stored origin.
    """
    if origin is not None and (not isinstance(origin, str) or not origin or "\n" in origin):
        raise StoreError("the log origin must be a non-empty single line")
    db = connect(url)
    try:
        migrate(db, clock())
        if origin is None:
            rows = db.query("SELECT value FROM log_meta WHERE name = 'origin'")
            if not rows:
                raise StoreError(f"no log at {url}: give its origin to create one")
            origin = str(rows[0][0])
    except LogError:
        db.close()
        raise
    except Exception as exc:
        db.close()
        raise StoreError(f"cannot migrate the log database: {exc}") from exc
    return Log(
        db,
        origin,
        signer,
        require_registered_keys=require_registered_keys,
        clock=clock,
        append_in_server=append_in_server,
    )
