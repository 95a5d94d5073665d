"""The one migration runner: versioned schema migrations, applied once each, in order.

Both the hand log (:mod:`audit.log.migrations`, versions in ``log_schema_version``) and
the service (:mod:`api.migrations`, versions in ``api_schema_migrations``) keep their own
list, numbering and version table and run them through :func:`run`:

- one transaction (the caller's :meth:`Session.transaction`), which on SQLite is
  ``BEGIN IMMEDIATE`` (the database's write lock) and on PostgreSQL first takes the
  version table's advisory lock (:attr:`VersionTable.pg_lock`), so several processes or
  hosts starting at once apply each migration exactly once;
- the version table is created if missing; every migration whose version is not in it
  runs (its SQLite or its PostgreSQL statements) and is recorded there with its name and
  a timestamp, in the same transaction, so a failed migration leaves nothing behind.

The runner only reads and writes the version table the caller names, so databases made
before it existed open unchanged.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from contextlib import AbstractContextManager
from dataclasses import dataclass
from typing import Any, Protocol

__all__ = ["Migration", "Session", "VersionTable", "applied_versions", "run"]


@dataclass(frozen=True, slots=True)
class Migration:
    """One schema version: its number, what it does, and its statements per dialect."""

    version: int
    name: str
    sqlite: tuple[str, ...]
    postgres: tuple[str, ...]

    @classmethod
    def portable(cls, version: int, name: str, statements: tuple[str, ...]) -> Migration:
        """A migration written in the SQL that SQLite and PostgreSQL share."""
        return cls(version, name, statements, statements)

    def statements(self, dialect: str) -> tuple[str, ...]:
        return self.sqlite if dialect == "sqlite" else self.postgres


@dataclass(frozen=True, slots=True)
class VersionTable:
    """Where a package records its applied migrations, and how.

    ``create`` is a ``CREATE TABLE IF NOT EXISTS`` of ``name``; ``insert`` takes
    ``(version, name, applied_at)`` with ``?`` placeholders; ``stamp`` makes the
    ``applied_at`` value; ``pg_lock`` is the statement (and its parameters) taking the
    PostgreSQL advisory transaction lock that serialises this package's migrations.
    """

    name: str
    create: str
    insert: str
    stamp: Callable[[], object]
    pg_lock: tuple[str, tuple[Any, ...]]


class Session(Protocol):
    """A connection the runner can use: its dialect, statements and one transaction."""

    @property
    def dialect(self) -> str:
        """``"sqlite"`` or ``"postgresql"``."""
        ...

    def execute(self, sql: str, params: Sequence[Any] = ()) -> object: ...

    def query(self, sql: str, params: Sequence[Any] = ()) -> list[tuple[Any, ...]]: ...

    def transaction(self) -> AbstractContextManager[object]:
        """One transaction; on SQLite it holds the write lock (``BEGIN IMMEDIATE``)."""
        ...


def applied_versions(session: Session, table: VersionTable) -> set[int]:
    """The versions recorded in ``table`` (which must exist)."""
    return {int(r[0]) for r in session.query(f"SELECT version FROM {table.name}")}


def run(session: Session, table: VersionTable, migrations: Sequence[Migration]) -> int:
    """Apply every migration not yet recorded, in order; return the version now in force."""
    versions = [m.version for m in migrations]
    if versions != sorted(set(versions)):
        raise ValueError(f"migrations of {table.name} out of order or repeated: {versions}")
    with session.transaction():
        if session.dialect == "postgresql":
            session.execute(*table.pg_lock)
        session.execute(table.create)
        done = applied_versions(session, table)
        for m in migrations:
            if m.version in done:
                continue
            for statement in m.statements(session.dialect):
                session.execute(statement)
            session.execute(table.insert, (m.version, m.name, table.stamp()))
            done.add(m.version)
        return max(done, default=0)
