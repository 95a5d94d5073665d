"""The log's storage: one database, its writer lock and transactions, the tree's nodes.

:class:`LogCore` holds what every part of :class:`audit.log.store.Log` shares: the
database (:mod:`audit.log.backends`), the lock that makes a ``Log`` thread-safe, the log's
identity (origin and signing key, checked against ``log_meta``), the writer transaction
that turns a driver's error into :class:`StoreError`, and the reads of the stored tree
(its size and its complete-subtree hashes) the appends, proofs and checkpoints build on.
"""

from __future__ import annotations

import os
import sqlite3
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from typing import Self

from audit.log import merkle
from audit.log.backends import Backend, as_bytes, nid
from audit.log.errors import LogError, LogInconsistent, StoreError
from audit.log.keys import Signer, Verifier

__all__ = ["APPEND_ENV", "LogCore"]


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


class LogCore:
    """The database and lock of one hand log (one origin); the base of every part of
    :class:`audit.log.store.Log`."""

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

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _size(self) -> int:
        row = self._db.query("SELECT MAX(idx) FROM log_entries")
        return 0 if row[0][0] is None else int(row[0][0]) + 1

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

    def _check_size(self, size: int) -> None:
        current = self._size()
        if not 0 <= size <= current:
            raise LogInconsistent(f"the log has {current} entries; no tree of size {size}")
