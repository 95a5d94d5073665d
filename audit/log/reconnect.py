"""Reconnecting to PostgreSQL after an outage: which errors mean "the connection is gone",
and when to try to connect again.

A database restart, a failover or ``pg_terminate_backend`` breaks every open
connection; the next statement on it fails. The service's connections (the log's in
:mod:`audit.log.backends`, the rows' in ``api.database``) then drop it and open a new
one on next use. While connecting fails, attempts are spaced out by :class:`Backoff`
(doubling from ``FAIRPLAY_DB_BACKOFF_MIN`` to ``FAIRPLAY_DB_BACKOFF_MAX`` seconds), and a
use in between fails at once with :class:`audit.errors.DatabaseUnavailable` naming the
seconds until the next attempt (the ``Retry-After`` of the service's 503).
"""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Callable

from audit.errors import DatabaseUnavailable

__all__ = ["CONNECT_TIMEOUT", "Backoff", "is_connection_lost", "unavailable"]

CONNECT_TIMEOUT = 5
"""Seconds a connection attempt may take (a host that answers nothing)."""

# SQLSTATE classes and codes that mean the session is gone or cannot be had now:
# 08 connection exception, 57P01 admin shutdown, 57P02 crash shutdown, 57P03 cannot
# connect now (starting up or shutting down), 53300 too many connections.
_LOST_STATES = ("08", "57P01", "57P02", "57P03", "57P04", "53300")


def _env_seconds(name: str, default: float) -> float:
    try:
        return max(0.0, float(os.environ.get(name, default)))
    except ValueError:
        return default


def is_connection_lost(exc: BaseException, conn: object | None = None) -> bool:
    """Whether ``exc`` (from psycopg) means the connection is lost or cannot be had.

    True for errors with no server SQLSTATE raised by psycopg's ``OperationalError``
    (the socket closed, the server unreachable), for the connection states above, and
    whenever ``conn`` is left broken or closed by the error.
    """
    if type(exc).__module__.split(".")[0] != "psycopg":
        return False
    if conn is not None and (getattr(conn, "broken", False) or getattr(conn, "closed", False)):
        return True
    state = str(getattr(exc, "sqlstate", "") or "")
    if state:
        return state.startswith(_LOST_STATES)
    import psycopg

    return isinstance(exc, psycopg.OperationalError | psycopg.InterfaceError)


def unavailable(what: str, exc: BaseException | None, retry_after: float) -> DatabaseUnavailable:
    """The error a request meets while the database cannot be reached."""
    reason = str(exc).strip().splitlines()[0] if exc is not None and str(exc).strip() else ""
    return DatabaseUnavailable(
        f"the {what} database cannot be reached now"
        + (f" ({reason})" if reason else "")
        + "; try again shortly",
        retry_after=max(1, round(retry_after + 0.49)),
    )


class Backoff:
    """When the next connection attempt may be made, after failed ones (thread-safe)."""

    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self.low = _env_seconds("FAIRPLAY_DB_BACKOFF_MIN", 0.1)
        self.high = max(self.low, _env_seconds("FAIRPLAY_DB_BACKOFF_MAX", 5.0))
        self._clock = clock
        self._lock = threading.Lock()
        self._delay = 0.0
        self._next = 0.0

    def wait(self) -> float:
        """Seconds until the next attempt is allowed (0: now)."""
        with self._lock:
            return max(0.0, self._next - self._clock())

    def failed(self) -> float:
        """An attempt failed: the seconds until the next one."""
        with self._lock:
            self._delay = self.low if self._delay == 0 else min(self.high, self._delay * 2)
            self._next = self._clock() + self._delay
            return self._delay

    def succeeded(self) -> None:
        with self._lock:
            self._delay = 0.0
            self._next = 0.0
