"""The reconnect policy (audit/log/reconnect.py): the backoff between attempts, and the
error a request meets while the database cannot be reached."""

from __future__ import annotations

import pytest

from audit.errors import DatabaseUnavailable
from audit.log.reconnect import Backoff, is_connection_lost, unavailable


def test_backoff_doubles_to_its_ceiling_and_resets(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("FAIRPLAY_DB_BACKOFF_MIN", "0.25")
    monkeypatch.setenv("FAIRPLAY_DB_BACKOFF_MAX", "1")
    now = [100.0]
    b = Backoff(clock=lambda: now[0])
    assert b.wait() == 0
    assert [b.failed() for _ in range(5)] == [0.25, 0.5, 1.0, 1.0, 1.0]
    assert b.wait() == 1.0
    now[0] += 0.4
    assert b.wait() == pytest.approx(0.6)
    b.succeeded()
    assert b.wait() == 0 and b.failed() == 0.25


def test_unavailable_names_the_database_and_when_to_retry() -> None:
    err = unavailable("log", OSError("connection refused\nmore"), 0.2)
    assert isinstance(err, DatabaseUnavailable)
    assert err.code == "DATABASE_UNAVAILABLE" and err.retry_after == 1
    assert err.details == {"retry_after": 1}
    assert "log database" in err.message and "connection refused" in err.message
    assert "more" not in err.message
    assert unavailable("log", None, 4.2).retry_after == 5


def test_only_the_drivers_lost_connections_count() -> None:
    import psycopg

    assert is_connection_lost(psycopg.OperationalError("server closed the connection"))
    assert not is_connection_lost(psycopg.errors.UniqueViolation("duplicate key"))
    assert not is_connection_lost(OSError("not the driver's"))
    assert not is_connection_lost(ValueError("x"))
