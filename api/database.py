"""The service's storage connection: SQLite (default) or PostgreSQL, chosen by URL.

SQL in this package is written once with ``?`` placeholders; :class:`Connection`
rewrites them to ``%s`` for psycopg. Each process keeps one connection per thread
(gunicorn's sync workers are single-threaded), opened lazily so that connections are
never shared across ``fork``.

Durability. The row that caches a hand's progress is refreshed after every action by
one autocommitted statement that is not flushed to disk on its own: SQLite (WAL mode)
commits it with ``synchronous=NORMAL``, PostgreSQL with ``synchronous_commit=off``. It
survives a crash of the process; a power cut may lose the last few such refreshes, which
the service rebuilds from the log (the source of truth, always flushed: the log's
``synchronous=FULL`` fsync of the shared WAL also covers every earlier row). Everything
written in :meth:`Connection.transaction` (players, tables, a hand's end with its report
and the next hand's secret seed, voids, uploaded audits) is flushed before it returns.
"""

from __future__ import annotations

import contextlib
import os
import re
import sqlite3
import threading
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any
from urllib.parse import urlparse

from api.config import ConfigError
from api.inputs import text_problem
from audit.errors import DatabaseUnavailable, InvalidInput
from audit.log.backends import split_schema as log_split_schema
from audit.log.errors import StoreError
from audit.log.reconnect import CONNECT_TIMEOUT, Backoff, is_connection_lost, unavailable

__all__ = [
    "Connection",
    "Database",
    "Row",
    "private_dir",
    "private_file",
    "split_schema",
    "sqlite_path",
]

Row = tuple[Any, ...]


def private_dir(path: Path) -> None:
    """Create the folder ``path`` (and its parents) readable by its owner only (0700).

    The data folder holds every live hand's deal and the log's signing key. A folder that
    exists is left as it is (an operator may have made it); the files in it are 0600.
    """
    path.mkdir(mode=0o700, parents=True, exist_ok=True)


def private_file(path: Path) -> None:
    """Create ``path`` empty with mode 0600, or take group and other access off it."""
    try:
        os.close(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600))
    except FileExistsError:
        if path.stat().st_mode & 0o077:
            os.chmod(path, 0o600)


def sqlite_path(url: str) -> str:
    """The file of a ``sqlite:///relative`` or ``sqlite:////absolute`` URL."""
    if url.startswith("sqlite:///"):
        return url[len("sqlite:///") :]
    if url.startswith("sqlite://"):
        return url[len("sqlite://") :]
    raise ConfigError(
        f"database url {url!r} is not sqlite:///PATH", details={"field": "database_url"}
    )


class Connection:
    """A DB-API connection and its dialect."""

    def __init__(self, raw: Any, dialect: str, owner: Database | None = None) -> None:
        self.raw = raw
        self.dialect = dialect
        self.in_transaction = False
        self.owner = owner
        """The PostgreSQL :class:`Database` that reopens this connection when it is lost."""

    def _sql(self, sql: str) -> str:
        return sql.replace("?", "%s") if self.dialect == "postgresql" else sql

    def execute(self, sql: str, params: Sequence[Any] = ()) -> Any:
        for value in params:
            if isinstance(value, str) and text_problem(value) is not None:
                # A request's text is checked where it comes in (api/inputs.py), naming its
                # field; this is the last line of defence, for the driver never to raise.
                raise InvalidInput(
                    f"a value of this request holds {text_problem(value)}, "
                    "which cannot be stored or looked up"
                )
        return self._run(self._sql(sql), tuple(params))

    def _run(self, sql: str, params: tuple[Any, ...] = ()) -> Any:
        """Run a statement; a lost connection is :class:`DatabaseUnavailable`, and a read
        outside a transaction is sent once more on a new connection first."""
        try:
            return self.raw.execute(sql, params)
        except Exception as exc:
            if self.owner is None or not is_connection_lost(exc, self.raw):
                raise
            self.owner.lost(self)
            read = sql.lstrip()[:6].upper() == "SELECT"
            if self.in_transaction or not read:
                raise self.owner.unavailable(exc) from None
        fresh = self.owner.connection()
        self.raw, fresh.raw = fresh.raw, self.raw  # this object stays the thread's
        self.owner.adopt(self)
        try:
            return self.raw.execute(sql, params)
        except Exception as exc:
            if not is_connection_lost(exc, self.raw):
                raise
            self.owner.lost(self)
            raise self.owner.unavailable(exc) from None

    def one(self, sql: str, params: Sequence[Any] = ()) -> Row | None:
        row = self.execute(sql, params).fetchone()
        return tuple(row) if row is not None else None

    def all(self, sql: str, params: Sequence[Any] = ()) -> list[Row]:
        return [tuple(r) for r in self.execute(sql, params).fetchall()]

    def query(self, sql: str, params: Sequence[Any] = ()) -> list[Row]:
        """:meth:`all` under the name :class:`audit.log.migrator.Session` uses."""
        return self.all(sql, params)

    @contextmanager
    def transaction(self) -> Iterator[Connection]:
        """One atomic, durable unit of work; nested use joins the outer transaction.

        Durable: flushed to disk before it returns, unlike the single autocommitted
        statements that refresh the cached hand rows (see the module docstring).
        """
        if self.in_transaction:
            yield self
            return
        self.in_transaction = True
        try:
            if self.dialect == "sqlite":
                self.raw.execute("PRAGMA synchronous=FULL")
                self.raw.execute("BEGIN IMMEDIATE")
            else:
                self._run("BEGIN")
                self._run("SET LOCAL synchronous_commit TO on")
            try:
                yield self
            except BaseException:
                if self.dialect == "sqlite" or not (self.raw.closed or self.raw.broken):
                    self._run("ROLLBACK")
                raise
            self._run("COMMIT")
        finally:
            self.in_transaction = False
            if self.dialect == "sqlite":
                self.raw.execute("PRAGMA synchronous=NORMAL")

    def close(self) -> None:
        self.raw.close()


_PG_SCHEME = re.compile(r"^postgres(ql)?://")


def split_schema(url: str) -> tuple[str, str | None]:
    """:func:`audit.log.backends.split_schema`, its refusal as the service's config error."""
    try:
        return log_split_schema(url)
    except StoreError as exc:
        raise ConfigError(exc.message, details={"field": "database_url"}) from None


class Database:
    """A database URL and this process's connections to it."""

    def __init__(self, url: str) -> None:
        if _PG_SCHEME.match(url):
            self.dialect = "postgresql"
        elif url.startswith("sqlite:"):
            self.dialect = "sqlite"
            path = sqlite_path(url)
            if path != ":memory:":
                # Owner only: SQLite creates the -wal and -shm files with the database
                # file's mode, so they are 0600 as well.
                private_dir(Path(path).parent)
                private_file(Path(path))
                for extra in ("-wal", "-shm"):
                    if Path(path + extra).exists():
                        private_file(Path(path + extra))
        else:
            raise ConfigError(
                f"database url {url!r}: use sqlite:///PATH or postgresql://...",
                details={"field": "database_url"},
            )
        self.url = url
        self._local = threading.local()
        self.backoff = Backoff()
        """Spaces out attempts to reconnect while PostgreSQL cannot be reached."""

    @property
    def display_url(self) -> str:
        """The URL without its password, for logs and /healthz."""
        if self.dialect == "sqlite":
            return self.url
        p = urlparse(self.url)
        host = p.hostname or ""
        port = f":{p.port}" if p.port else ""
        user = f"{p.username}@" if p.username else ""
        return f"{p.scheme}://{user}{host}{port}{p.path}"

    def _open(self) -> Connection:
        if self.dialect == "sqlite":
            lite = sqlite3.connect(
                sqlite_path(self.url), isolation_level=None, timeout=30, check_same_thread=False
            )
            lite.execute("PRAGMA journal_mode=WAL")
            lite.execute("PRAGMA synchronous=NORMAL")
            lite.execute("PRAGMA busy_timeout=30000")
            lite.execute("PRAGMA foreign_keys=ON")
            return Connection(lite, "sqlite")
        import psycopg

        url, schema = split_schema(self.url)
        wait = self.backoff.wait()
        if wait > 0:
            raise unavailable("service's", None, wait)
        try:
            raw = psycopg.connect(url, autocommit=True, connect_timeout=CONNECT_TIMEOUT)
            raw.execute("SET synchronous_commit TO off")  # cache-grade single statements
            if schema:
                ident = '"' + schema + '"'
                raw.execute(f"CREATE SCHEMA IF NOT EXISTS {ident}")
                raw.execute(f"SET search_path TO {ident}")
        except Exception as exc:
            if not is_connection_lost(exc):
                raise
            raise unavailable("service's", exc, self.backoff.failed()) from None
        self.backoff.succeeded()
        return Connection(raw, "postgresql", self)

    def lost(self, conn: Connection) -> None:
        """``conn`` (this thread's) lost its server: closed, to be opened anew on next use."""
        with contextlib.suppress(Exception):  # already broken
            conn.raw.close()
        if getattr(self._local, "conn", None) is conn:
            self._local.conn = None

    def adopt(self, conn: Connection) -> None:
        """Make ``conn`` this thread's connection again (after it took a fresh one's raw)."""
        self._local.conn = conn

    def unavailable(self, exc: BaseException | None) -> DatabaseUnavailable:
        """The error of a request that found the database unreachable."""
        return unavailable("service's", exc, max(self.backoff.wait(), self.backoff.low))

    def connection(self) -> Connection:
        """This thread's connection, opened (or reopened after a failure) on demand."""
        conn: Connection | None = getattr(self._local, "conn", None)
        if (
            conn is not None
            and self.dialect == "postgresql"
            and (conn.raw.closed or conn.raw.broken)
        ):
            self.lost(conn)
            conn = None
        if conn is None:
            conn = self._open()
            self._local.conn = conn
        return conn

    def discard(self) -> None:
        """Drop this thread's connection (after an error that may have broken it)."""
        conn: Connection | None = getattr(self._local, "conn", None)
        if conn is not None:
            with contextlib.suppress(Exception):  # already broken
                conn.close()
            self._local.conn = None

    def close(self) -> None:
        self.discard()
