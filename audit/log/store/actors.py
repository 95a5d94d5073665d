"""Actors' keys: which verifier keys may sign which actor's events.

Each event carries its signer's verifier key (``key``). The log accepts it only if that
key is registered for the event's ``actor`` (:meth:`LogActors.register_key`), or is given
for that actor in the ``keys`` argument of ``append``. ``open_log(...,
require_registered_keys=False)`` accepts any key that verifies (for tests and demos).
"""

from __future__ import annotations

from audit.log.keys import Verifier
from audit.log.store.core import LogCore

__all__ = ["LogActors"]


class LogActors(LogCore):
    """The key registry (``log_actor_keys``): append-only, so a key registered once stays."""

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
