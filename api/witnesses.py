"""Witness cosignatures of the service's checkpoints: accepted, stored, served.

A witness (``fairplay witness``, :mod:`audit.log.witness`) posts the log's checkpoint
with its ``cosignature/v1`` line appended to ``POST /v1/log/cosignatures``. The service
accepts it only when the note is a checkpoint this log signed and stored (same size,
same body), and the line is a valid cosignature by one of the configured witness keys
(``FAIRPLAY_WITNESS_KEYS`` / ``fairplay serve --witness-key``). Lines are kept in
``api_cosignatures`` (one per checkpoint size and witness, the newest timestamp wins) and
appended to every checkpoint note the service serves: ``GET /v1/log/checkpoint``, the
proofs and the hand bundles.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from api.database import Database
from api.errors import ApiError, BadRequest, Forbidden
from audit.log.checkpoint import parse as parse_checkpoint
from audit.log.cosignature import WitnessKey, add_cosignatures, cosignatures_by
from audit.log.errors import LogError
from audit.log.note import parse as parse_note
from audit.log.note import verify as verify_note
from audit.log.store import Log

__all__ = ["UnknownCheckpoint", "WitnessBook"]


class UnknownCheckpoint(ApiError):
    """A checkpoint signed by this log's key that this service did not store: another
    view of the log (a split view), or a size this host has not reached."""

    status = 409
    code = "CHECKPOINT_UNKNOWN"


class WitnessBook:
    """The cosignatures of the configured witnesses, in the service's database."""

    def __init__(self, db: Database, log: Log, keys: tuple[str, ...]) -> None:
        self.db = db
        self.log = log
        self.keys = tuple(WitnessKey.from_text(k) for k in keys)
        self._by_text = {k.text(): k for k in self.keys}

    def accept(self, body: str, *, now: float) -> dict[str, Any]:
        """Verify and store the cosignatures in ``body`` (a cosigned checkpoint note)."""
        if not self.keys:
            raise Forbidden("this service accepts no cosignatures: no witness keys configured")
        assert self.log.verifier is not None
        try:  # the log key's signature first: a stranger's text is never parsed further
            verify_note(body, self.log.verifier)
        except LogError:
            raise BadRequest(
                "body: the checkpoint is not signed by this log's key",
                details={"path": "body"},
            ) from None
        try:
            text, _ = parse_note(body)
            cp = parse_checkpoint(text)
        except LogError as exc:
            raise BadRequest(f"body: {exc.message}", details={"path": "body"}) from None
        stored = self.log.checkpoint_of(cp.size)
        if stored is None or parse_note(stored)[0] != text:
            raise UnknownCheckpoint(
                f"this service stored no checkpoint of size {cp.size} with that root",
                details={"size": cp.size},
            )
        found = cosignatures_by(body, self.keys)  # a bad line by a known key: 422
        if not found:
            raise Forbidden(
                "body: no cosignature by a configured witness key",
                details={"path": "body", "witnesses": [k.text() for k in self.keys]},
            )
        root = text.split("\n")[2]
        received = datetime.fromtimestamp(now, UTC).isoformat()
        conn = self.db.connection()
        with conn.transaction():
            for witness, cos in found.items():
                conn.execute(
                    "INSERT INTO api_cosignatures"
                    " (size, witness, root, cosigned_at, line, received_at)"
                    " VALUES (?, ?, ?, ?, ?, ?)"
                    " ON CONFLICT (size, witness) DO UPDATE SET cosigned_at = excluded.cosigned_at,"
                    " line = excluded.line, received_at = excluded.received_at"
                    " WHERE excluded.cosigned_at > api_cosignatures.cosigned_at",
                    (cp.size, witness, root, cos.timestamp, cos.line(), received),
                )
        return {
            "origin": cp.origin,
            "size": cp.size,
            "accepted": sorted(found),
            "cosigned_by": [self._by_text[w].name for w in self._witnesses_of(cp.size, root)],
        }

    def _rows(self, size: int) -> list[tuple[str, str, str]]:
        rows = self.db.connection().all(
            "SELECT witness, root, line FROM api_cosignatures WHERE size = ? ORDER BY witness",
            (size,),
        )
        return [(str(w), str(r), str(line)) for w, r, line in rows if str(w) in self._by_text]

    def _witnesses_of(self, size: int, root: str) -> list[str]:
        return [w for w, r, _ in self._rows(size) if r == root]

    def annotate(self, note_text: str) -> str:
        """``note_text`` with the stored cosignature lines of its checkpoint appended."""
        if not self.keys:
            return note_text
        text, _ = parse_note(note_text)
        size, root = parse_checkpoint(text).size, text.split("\n")[2]
        lines = [line for _, r, line in self._rows(size) if r == root]
        return add_cosignatures(note_text, lines)

    def count(self, size: int) -> int:
        """How many configured witnesses cosigned the checkpoint of ``size``."""
        return len(self._rows(size))

    def best_covering(self, need: int, at_least: int = 1) -> int | None:
        """The size of the newest checkpoint of at least ``need`` entries cosigned by the
        most configured witnesses (at least ``at_least``), or None."""
        if not self.keys:
            return None
        marks = ", ".join("?" * len(self.keys))
        rows = self.db.connection().all(
            "SELECT size, COUNT(*) FROM api_cosignatures"
            f" WHERE size >= ? AND witness IN ({marks})"
            " GROUP BY size ORDER BY COUNT(*) DESC, size DESC",
            (need, *self._by_text),
        )
        if not rows or int(rows[0][1]) < at_least:
            return None
        return int(rows[0][0])

    def witnessed(self, at_least: int) -> int | None:
        """The size of the newest checkpoint cosigned by ``at_least`` configured witnesses."""
        if not self.keys:
            return None
        marks = ", ".join("?" * len(self.keys))
        rows = self.db.connection().all(
            "SELECT size FROM api_cosignatures"
            f" WHERE witness IN ({marks}) GROUP BY size HAVING COUNT(*) >= ?"
            " ORDER BY size DESC LIMIT 1",
            (*self._by_text, at_least),
        )
        return int(rows[0][0]) if rows else None
