"""Database backends of the hand log: SQLite and PostgreSQL behind one small interface.

``connect(url)`` returns a backend for ``sqlite:///path``, a plain path, ``:memory:``, or
``postgresql://...`` (with an optional ``schema=NAME`` query parameter, created if
needed). Both take SQL with ``?`` placeholders, run the same schema
(:mod:`audit.log.migrations`) and offer ``write()``: one transaction holding the log's
writer lock (SQLite ``BEGIN IMMEDIATE``; PostgreSQL ``LOCK TABLE log_entries IN SHARE ROW
EXCLUSIVE MODE``), so appends from several processes are serialised. (PostgreSQL appends
take the same lock inside ``log_append_batch`` instead, one statement per batch.)
"""

from __future__ import annotations

import re
import sqlite3
import time
import urllib.parse
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager, suppress
from typing import Any

from audit.log import migrator, reconnect
from audit.log.errors import StoreError
from audit.log.migrations import MIGRATIONS, version_table

__all__ = ["NID_SHIFT", "Backend", "as_bytes", "connect", "migrate", "nid", "split_schema"]

NID_SHIFT = 48


def as_bytes(value: Any) -> bytes:
    """A stored BLOB/BYTEA as bytes (text put there by tampering is encoded, not trusted)."""
    if isinstance(value, str):
        return value.encode("utf-8", "surrogateescape")
    if value is None:
        return b""
    if isinstance(value, int):
        return str(value).encode()
    return bytes(value)


def nid(level: int, idx: int) -> int:
    """The stored key of complete subtree ``(level, idx)``."""
    return (level << NID_SHIFT) | idx


# --------------------------------------------------------------------------- backends


class Backend:
    kind = ""
    placeholder = "?"

    def query(self, sql: str, params: Sequence[Any] = ()) -> list[tuple[Any, ...]]:
        raise NotImplementedError

    def execute(self, sql: str, params: Sequence[Any] = ()) -> None:
        raise NotImplementedError

    def executemany(self, sql: str, rows: Sequence[Sequence[Any]]) -> None:
        raise NotImplementedError

    def write(self) -> Any:
        """A context manager: one transaction holding the log's writer lock."""
        raise NotImplementedError

    @property
    def dialect(self) -> str:
        """``"sqlite"`` or ``"postgresql"`` (for :mod:`audit.log.migrator`)."""
        return self.kind

    def transaction(self) -> Any:
        """A context manager: one transaction (on SQLite, holding the write lock)."""
        return self.write()

    def close(self) -> None:
        raise NotImplementedError


class _SQLite(Backend):
    kind = "sqlite"

    def __init__(self, path: str) -> None:
        try:
            self.conn = sqlite3.connect(
                path, isolation_level=None, check_same_thread=False, timeout=60.0
            )
            if path != ":memory:":
                mode = self._wal_mode()
                if str(mode).lower() != "wal":
                    raise StoreError(f"cannot put {path} in WAL mode (got {mode})")
            self.conn.execute("PRAGMA synchronous=FULL")
            self.conn.execute("PRAGMA busy_timeout=60000")
        except sqlite3.Error as exc:
            raise StoreError(f"cannot open SQLite log {path}: {exc}") from exc

    def _wal_mode(self, patience: float = 60.0) -> Any:
        """Switch to WAL, retrying while another process holds the lock.

        Changing (or confirming) the journal mode can fail with "database is locked"
        without SQLite's busy handler being called, when several processes open a
        new database at once; a short retry loop covers that window.
        """
        deadline = time.monotonic() + patience
        delay = 0.005
        while True:
            try:
                return self.conn.execute("PRAGMA journal_mode=WAL").fetchone()[0]
            except sqlite3.OperationalError as exc:
                if "locked" not in str(exc) or time.monotonic() > deadline:
                    raise
                time.sleep(delay)
                delay = min(delay * 2, 0.25)

    def query(self, sql: str, params: Sequence[Any] = ()) -> list[tuple[Any, ...]]:
        return list(self.conn.execute(sql, tuple(params)).fetchall())

    def execute(self, sql: str, params: Sequence[Any] = ()) -> None:
        self.conn.execute(sql, tuple(params))

    def executemany(self, sql: str, rows: Sequence[Sequence[Any]]) -> None:
        self.conn.executemany(sql, rows)

    @contextmanager
    def write(self) -> Iterator[None]:
        self.conn.execute("BEGIN IMMEDIATE")
        try:
            yield
        except BaseException:
            self.conn.execute("ROLLBACK")
            raise
        self.conn.execute("COMMIT")

    def close(self) -> None:
        self.conn.close()


class _Postgres(Backend):
    """A PostgreSQL connection that is opened again after it is lost (a database restart,
    a failover, ``pg_terminate_backend``), with backoff (:mod:`audit.log.reconnect`).

    A statement that fails because the connection is lost raises
    :class:`audit.errors.DatabaseUnavailable`, except a single statement outside a
    transaction (every read, and the log's ``log_append_batch``), which is sent once more
    on a new connection: a read has no effect, and an append that did commit is refused
    the second time by its own chain check (``seq`` and ``prev``), which the service
    answers as an event the log holds already.
    """

    kind = "postgresql"
    placeholder = "%s"

    def __init__(self, url: str, schema: str | None) -> None:
        import psycopg

        self._url = url
        self._schema = schema
        self._backoff = reconnect.Backoff()
        self._in_tx = False
        self._conn: Any = None
        try:
            self._conn = self._open()
        except psycopg.Error as exc:
            raise StoreError(f"cannot open PostgreSQL log: {exc}") from exc

    def _open(self) -> Any:
        import psycopg

        conn = psycopg.connect(
            self._url, autocommit=True, connect_timeout=reconnect.CONNECT_TIMEOUT
        )
        if self._schema:
            ident = _pg_ident(self._schema)
            with conn.transaction():  # concurrent CREATE SCHEMA IF NOT EXISTS races
                conn.execute("SELECT pg_advisory_xact_lock(hashtext('log schema'))")
                conn.execute(f"CREATE SCHEMA IF NOT EXISTS {ident}")
            conn.execute(f"SET search_path TO {ident}")
        return conn

    @property
    def conn(self) -> Any:
        """The open connection, opened again if the last one was lost."""
        conn = self._conn
        if conn is not None and not conn.closed and not conn.broken:
            return conn
        if self._in_tx:
            raise reconnect.unavailable("log", None, self._backoff.wait())
        self._drop()
        wait = self._backoff.wait()
        if wait > 0:
            raise reconnect.unavailable("log", None, wait)
        try:
            self._conn = self._open()
        except Exception as exc:
            if not reconnect.is_connection_lost(exc):
                raise
            raise reconnect.unavailable("log", exc, self._backoff.failed()) from None
        self._backoff.succeeded()
        return self._conn

    def _drop(self) -> None:
        conn, self._conn = self._conn, None
        if conn is not None:
            with suppress(Exception):  # already broken
                conn.close()

    def _run(self, step: Callable[[Any], Any]) -> Any:
        """``step(connection)``; a lost connection reopened and, outside a transaction,
        the step sent once more."""
        for attempt in (1, 2):
            conn = self.conn
            try:
                return step(conn)
            except Exception as exc:
                if not reconnect.is_connection_lost(exc, conn):
                    raise
                self._backoff.failed()
                if self._in_tx or attempt == 2:
                    raise reconnect.unavailable("log", exc, self._backoff.wait()) from None
                self._drop()
                self._backoff.succeeded()  # the server was up a moment ago: try at once
        raise AssertionError("unreachable")

    def _sql(self, sql: str) -> str:
        return sql.replace("?", "%s")

    def query(self, sql: str, params: Sequence[Any] = ()) -> list[tuple[Any, ...]]:
        rows = self._run(lambda c: c.execute(self._sql(sql), tuple(params) or None).fetchall())
        return [tuple(bytes(v) if isinstance(v, memoryview) else v for v in r) for r in rows]

    def execute(self, sql: str, params: Sequence[Any] = ()) -> None:
        if params:
            self._run(lambda c: c.execute(self._sql(sql), tuple(params)))
        else:
            self._run(lambda c: c.execute(sql))

    def executemany(self, sql: str, rows: Sequence[Sequence[Any]]) -> None:
        def many(conn: Any) -> None:
            with conn.cursor() as cur:
                cur.executemany(self._sql(sql), rows)

        self._run(many)

    @contextmanager
    def transaction(self) -> Iterator[None]:
        conn = self.conn
        self._in_tx = True
        try:
            with conn.transaction():
                yield
        except Exception as exc:
            if reconnect.is_connection_lost(exc, conn):
                self._backoff.failed()
                raise reconnect.unavailable("log", exc, self._backoff.wait()) from None
            raise
        finally:
            self._in_tx = False

    @contextmanager
    def write(self) -> Iterator[None]:
        with self.transaction():
            self.execute("LOCK TABLE log_entries IN SHARE ROW EXCLUSIVE MODE")
            yield

    def close(self) -> None:
        self._drop()


def _pg_ident(name: str) -> str:
    if not name.replace("_", "").isalnum() or not name.isascii():
        raise StoreError(f"invalid schema name {name!r}")
    return '"' + name + '"'


_SCHEMA_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]{0,62}$")


def split_schema(url: str) -> tuple[str, str | None]:
    """A PostgreSQL URL without its ``schema=NAME`` parameter, and that name.

    The one parser of ``schema=`` in database URLs: the log's backends and the service's
    database (``api.database``) keep their tables in that schema, created on first use.
    Raises :class:`StoreError` naming the schema if it is not a plain identifier.
    """
    parts = urllib.parse.urlsplit(url)
    query = urllib.parse.parse_qsl(parts.query, keep_blank_values=True)
    schema = next((v for k, v in query if k == "schema"), None)
    if schema is not None and not _SCHEMA_NAME.match(schema):
        raise StoreError(f"schema {schema!r}: letters, digits and _ only")
    rest = urllib.parse.urlencode([(k, v) for k, v in query if k != "schema"])
    return urllib.parse.urlunsplit(parts._replace(query=rest)), schema


def connect(url: str) -> Backend:
    if url.startswith(("postgresql://", "postgres://")):
        return _Postgres(*split_schema(url))
    if url.startswith("sqlite:///"):
        return _SQLite(url[len("sqlite:///") :] or ":memory:")
    if url.startswith("sqlite://"):
        return _SQLite(url[len("sqlite://") :] or ":memory:")
    if "://" in url:
        raise StoreError(f"unsupported database URL {url!r} (use sqlite:/// or postgresql://)")
    return _SQLite(url)


def migrate(db: Backend, now: float) -> None:
    """Bring the log's tables to the latest version (:mod:`audit.log.migrator`)."""
    migrator.run(db, version_table(now), MIGRATIONS)
