"""Wake-ups for the threads that wait on tables: server-sent event streams and house bots.

A process keeps one :class:`Changes`. :meth:`Room.submit <api.room.Room.submit>` calls
:meth:`Changes.touch` after every logged action, so a stream or a bot in the same
process wakes at once. An action logged by another worker process or host is not
seen here: waiters also wake every ``timeout`` seconds (one second) and read the hand's
row, a one-row query, so they follow every host within about a second without the
page having to poll.
"""

from __future__ import annotations

import threading

__all__ = ["Changes"]


class Changes:
    """A version number bumped on every change, and a condition to wait on it."""

    def __init__(self) -> None:
        self._cond = threading.Condition()
        self.version = 0
        self.closed = False
        """Set when the service shuts down: every waiter stops."""

    def touch(self) -> None:
        with self._cond:
            self.version += 1
            self._cond.notify_all()

    def wait(self, seen: int, timeout: float) -> int:
        """Block until the version moves past ``seen`` (or ``timeout`` seconds); the version."""
        with self._cond:
            if self.version == seen and not self.closed:
                self._cond.wait(timeout)
            return self.version

    def close(self) -> None:
        with self._cond:
            self.closed = True
            self._cond.notify_all()
