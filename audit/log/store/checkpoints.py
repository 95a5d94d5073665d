"""The log's signed checkpoints: issued, stored (``log_checkpoints``) and checked.

The note format itself is :mod:`audit.log.checkpoint`'s; this module issues a note for a
tree size once and returns that same note to every caller after (schedule-stable), and
checks a saved checkpoint against the stored tree (rollback, rewritten history).
"""

from __future__ import annotations

import hmac

from audit.log.checkpoint import Checkpoint
from audit.log.checkpoint import parse as parse_checkpoint
from audit.log.errors import LogInconsistent, StoreError
from audit.log.note import verify as verify_note
from audit.log.store.proofs import LogProofs

__all__ = ["LogCheckpoints"]


class LogCheckpoints(LogProofs):
    """Checkpoints issued by the writer side, read by everyone."""

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
