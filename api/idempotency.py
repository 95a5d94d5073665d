"""Requests sent again with an ``Idempotency-Key`` have one effect.

A ``POST`` that creates something (an event: ``POST /v1/tournaments``) is not an action in
a log whose hash makes a second copy harmless: sent twice, it would create twice. A client
that lost the answer (a dropped connection, a host that died, a database restart: every
client of ours asks again then) or two workers that took the same request would make two
events. With the header of the IETF draft *The Idempotency-Key HTTP Header Field*, the
first request with a key claims it (a row of ``api_idempotency``, taken by one insert, so
one of any number of concurrent requests wins), does the work and stores its answer; every
later request with the key and the same body gets that stored answer, status and
``Location`` included. What the draft says, as this service does it:

- the same key with another body (another SHA-256 of the body's bytes) or on another
  route: ``422`` ``IDEMPOTENCY_KEY_REUSED``, naming the header;
- the same key while its first request is still being answered: the request waits for it
  (a few seconds), then ``409`` ``IDEMPOTENCY_KEY_IN_USE`` with ``Retry-After``;
- a first request that failed (an error answer) releases the key: sending it again tries
  again;
- a claim whose request died with its host is taken over after :data:`STALE_SECONDS`.

A key is 1 to 255 printable ASCII characters (``Idempotency-Key: "…"`` or bare). Keys are
kept (they are small); the event they made outlives them anyway.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import time
from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any

from api.database import Database
from audit.errors import FairplayError, InvalidInput, NotReadyError

__all__ = [
    "HEADER",
    "STALE_SECONDS",
    "KeyInUse",
    "KeyReused",
    "Stored",
    "once",
    "parse_key",
]

HEADER = "Idempotency-Key"
STALE_SECONDS = 60.0
"""A claim with no answer after this long belongs to a request that died: taken over."""
WAIT_SECONDS = 5.0
"""How long a request waits for the answer of the first with its key."""

Stored = tuple[int, dict[str, Any], dict[str, str]]
"""An answer: status, JSON body, headers."""


class KeyReused(FairplayError):
    """The key was used with another body or on another route (422)."""

    code = "IDEMPOTENCY_KEY_REUSED"


class KeyInUse(NotReadyError):
    """The key's first request is still being answered (409 with ``Retry-After``)."""

    code = "IDEMPOTENCY_KEY_IN_USE"

    def __init__(self, message: str) -> None:
        super().__init__(message, 1, details={"path": HEADER})


def parse_key(value: str | None) -> str | None:
    """The header's key (quotes of a structured-field string taken off), ``None`` when the
    header is absent; :class:`InvalidInput` naming the header when it is not a key."""
    if value is None:
        return None
    key = value[1:-1] if len(value) >= 2 and value[0] == value[-1] == '"' else value
    if not 1 <= len(key) <= 255 or not all(" " <= c <= "~" for c in key) or '"' in key:
        raise InvalidInput(
            f"{HEADER}: 1 to 255 printable ASCII characters, without a quote",
            details={"path": HEADER},
        )
    return key


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")


def once(
    db: Database,
    key: str,
    route: str,
    body: bytes,
    work: Callable[[], Stored],
    *,
    clock: Callable[[], float] = time.time,
    sleep: Callable[[float], None] = time.sleep,
) -> Stored:
    """``work()``'s answer, computed once for ``key``: the stored answer for a key already
    answered, :class:`KeyReused` for another body or route, :class:`KeyInUse` while the
    first request is still at work."""
    digest = hashlib.sha256(body).hexdigest()
    deadline = clock() + WAIT_SECONDS
    while True:
        conn = db.connection()
        with conn.transaction() as tx:
            claimed = (
                tx.execute(
                    "INSERT INTO api_idempotency (key, route, body_sha256, claimed_at, created_at) "
                    "VALUES (?, ?, ?, ?, ?) ON CONFLICT DO NOTHING",
                    (key, route, digest, clock(), _now()),
                ).rowcount
                == 1
            )
            row = (
                None
                if claimed
                else tx.one(
                    "SELECT route, body_sha256, claimed_at, answer FROM api_idempotency "
                    "WHERE key = ?",
                    (key,),
                )
            )
        if claimed:
            return _answer(db, key, work)
        if row is None:
            continue  # released between the insert and the read: claim it again
        first_route, first_digest, claimed_at, answer = row
        if first_route != route or first_digest != digest:
            raise KeyReused(
                f"{HEADER}: this key was used for another request (another body or route);"
                " a new request takes a new key",
                details={"path": HEADER},
            )
        if answer is not None:
            status, payload, headers = json.loads(answer)
            return int(status), payload, headers
        if clock() - float(claimed_at) > STALE_SECONDS:
            # The first request's host died before it answered: release its claim (only
            # if it is still that claim) and claim the key anew.
            db.connection().execute(
                "DELETE FROM api_idempotency WHERE key = ? AND answer IS NULL AND claimed_at = ?",
                (key, claimed_at),
            )
            continue
        if clock() >= deadline:
            raise KeyInUse(f"{HEADER}: the first request with this key is still being answered")
        sleep(0.05)


def _answer(db: Database, key: str, work: Callable[[], Stored]) -> Stored:
    try:
        status, payload, headers = work()
    except BaseException:
        # Nothing was made (an error is answered before anything is written, or the
        # database went away): the key may be sent again and tried again. Should the
        # release fail too, the claim goes stale and is taken over.
        with contextlib.suppress(Exception):
            db.connection().execute(
                "DELETE FROM api_idempotency WHERE key = ? AND answer IS NULL", (key,)
            )
        raise
    db.connection().execute(
        "UPDATE api_idempotency SET answer = ? WHERE key = ?",
        (json.dumps([status, payload, headers]), key),  # key order kept: the same bytes
    )
    return status, payload, headers
