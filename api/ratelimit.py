"""Per-client rate limits: a token bucket per (bucket, client address), kept in the database.

Anyone may upload a record (``POST /v1/audits``) and, with self-registration, register a
player; each costs storage and, for an upload, an audit. A client has ``burst`` tokens
that refill at ``per_hour`` an hour; each request takes one, and a request that finds
none is refused with 429 ``TOO_MANY_REQUESTS`` and ``Retry-After`` (the seconds until a
token is back). The bucket is a row of the service's database, read and written in one
locked transaction, so the limit holds across worker processes and hosts, not per
process. The clock is the service's (``Config.clock``): tests move it by hand.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from api.database import Connection
from api.errors import TooManyRequests

__all__ = ["Rate", "refill", "take"]


@dataclass(frozen=True, slots=True)
class Rate:
    """``burst`` requests at once, refilled at ``per_hour`` an hour; per_hour 0: no limit."""

    burst: int
    per_hour: int

    @property
    def per_second(self) -> float:
        return self.per_hour / 3600.0


def refill(tokens: float, elapsed: float, rate: Rate) -> float:
    """The tokens of a bucket ``elapsed`` seconds after it held ``tokens``."""
    return min(float(rate.burst), tokens + max(0.0, elapsed) * rate.per_second)


def take(conn: Connection, bucket: str, client: str, rate: Rate, now: float) -> None:
    """Take one token from ``client``'s ``bucket``, or raise :class:`TooManyRequests`."""
    if rate.per_hour <= 0:
        return
    with conn.transaction():
        conn.execute(
            "INSERT INTO api_rate_buckets (bucket, client, tokens, updated) VALUES (?, ?, ?, ?) "
            "ON CONFLICT (bucket, client) DO NOTHING",
            (bucket, client, float(rate.burst), now),
        )
        lock = " FOR UPDATE" if conn.dialect == "postgresql" else ""  # SQLite: BEGIN IMMEDIATE
        row = conn.one(
            f"SELECT tokens, updated FROM api_rate_buckets WHERE bucket = ? AND client = ?{lock}",
            (bucket, client),
        )
        assert row is not None  # inserted above
        tokens = refill(float(row[0]), now - float(row[1]), rate)
        if tokens < 1.0:
            wait = max(1, math.ceil((1.0 - tokens) / rate.per_second))
            raise TooManyRequests(
                f"too many {bucket} requests from this address: at most {rate.burst} at once "
                f"and {rate.per_hour} an hour; retry in {wait} s",
                retry_after=wait,
                details={"bucket": bucket},
            )
        conn.execute(
            "UPDATE api_rate_buckets SET tokens = ?, updated = ? WHERE bucket = ? AND client = ?",
            (tokens - 1.0, now, bucket, client),
        )
        # A bucket idle long enough to be full again says nothing: forget it.
        full_after = rate.burst / rate.per_second
        conn.execute(
            "DELETE FROM api_rate_buckets WHERE bucket = ? AND updated < ?",
            (bucket, now - full_after),
        )
