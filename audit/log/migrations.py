"""Versioned schema of the hand log, the same for SQLite and PostgreSQL.

Every table is prefixed ``log_`` so the log can share a database with the service. Each
migration runs once, in a transaction, and is recorded in ``log_schema_version``. The
database itself refuses UPDATE and DELETE (and, on PostgreSQL, TRUNCATE) on every log
table, so the log is append-only even for code that bypasses this package.

Tables (version 1):

``log_meta(name, value)``
    ``origin`` and ``verifier_key`` of the log, written once.
``log_entries(idx, table_id, hand_id, seq, actor, type, event_hash, leaf)``
    One row per event; ``leaf`` is the canonical JSON of the signed event (the Merkle
    leaf input), ``idx`` is dense from 0, ``(table_id, hand_id, seq)`` is unique.
``log_nodes(nid, hash)``
    Every complete subtree hash: ``nid = level << 48 | idx`` for the subtree covering
    leaves ``[idx << level, (idx + 1) << level)``. About two rows per entry.
``log_checkpoints(size, root, note, issued_at)``
    The signed checkpoints issued, one per tree size.
``log_actor_keys(actor, key_text, registered_at)``
    The verifier keys allowed to sign events of each actor.
"""

from __future__ import annotations

from dataclasses import dataclass

TABLES = ("log_meta", "log_entries", "log_nodes", "log_checkpoints", "log_actor_keys")


@dataclass(frozen=True, slots=True)
class Migration:
    version: int
    description: str
    sqlite: tuple[str, ...]
    postgres: tuple[str, ...]


def _sqlite_guards(table: str) -> tuple[str, ...]:
    return tuple(
        f"CREATE TRIGGER {table}_no_{op.lower()} BEFORE {op} ON {table} "
        f"BEGIN SELECT RAISE(ABORT, 'the hand log is append-only: {op} on {table} refused'); END"
        for op in ("UPDATE", "DELETE")
    )


def _pg_guards(table: str) -> tuple[str, ...]:
    return (
        f"CREATE TRIGGER {table}_append_only BEFORE UPDATE OR DELETE ON {table} "
        "FOR EACH ROW EXECUTE FUNCTION log_refuse_change()",
        f"CREATE TRIGGER {table}_no_truncate BEFORE TRUNCATE ON {table} "
        "FOR EACH STATEMENT EXECUTE FUNCTION log_refuse_change()",
    )


_V1_TABLES = (
    "CREATE TABLE log_meta (name TEXT PRIMARY KEY, value TEXT NOT NULL)",
    "CREATE TABLE log_entries ("
    " idx {int} PRIMARY KEY CHECK (idx >= 0),"
    " table_id TEXT NOT NULL, hand_id TEXT NOT NULL, seq BIGINT NOT NULL CHECK (seq >= 0),"
    " actor TEXT NOT NULL, type TEXT NOT NULL, event_hash TEXT NOT NULL,"
    " leaf {blob} NOT NULL,"
    " UNIQUE (table_id, hand_id, seq))",
    "CREATE TABLE log_nodes (nid {int} PRIMARY KEY, hash {blob} NOT NULL)",
    "CREATE TABLE log_checkpoints (size BIGINT PRIMARY KEY, root {blob} NOT NULL,"
    " note TEXT NOT NULL, issued_at DOUBLE PRECISION NOT NULL)",
    "CREATE TABLE log_actor_keys (actor TEXT NOT NULL, key_text TEXT NOT NULL,"
    " registered_at DOUBLE PRECISION NOT NULL, PRIMARY KEY (actor, key_text))",
)

_PG_FUNCTION = (
    "CREATE OR REPLACE FUNCTION log_refuse_change() RETURNS trigger LANGUAGE plpgsql AS $$ "
    "BEGIN RAISE EXCEPTION 'the hand log is append-only: % on % refused', TG_OP, TG_TABLE_NAME; "
    "END $$"
)

MIGRATIONS: tuple[Migration, ...] = (
    Migration(
        1,
        "log tables, append-only triggers",
        sqlite=tuple(s.replace("{blob}", "BLOB").replace("{int}", "INTEGER") for s in _V1_TABLES)
        + tuple(g for t in (*TABLES, "log_schema_version") for g in _sqlite_guards(t)),
        postgres=tuple(s.replace("{blob}", "BYTEA").replace("{int}", "BIGINT") for s in _V1_TABLES)
        + (_PG_FUNCTION,)
        + tuple(g for t in (*TABLES, "log_schema_version") for g in _pg_guards(t)),
    ),
)

LATEST_VERSION = MIGRATIONS[-1].version

SCHEMA_VERSION_TABLE = (
    "CREATE TABLE IF NOT EXISTS log_schema_version (version INTEGER PRIMARY KEY,"
    " description TEXT NOT NULL, applied_at DOUBLE PRECISION NOT NULL)"
)
