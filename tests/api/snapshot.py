"""Every row of the service's tables (``api_*``) and the log's (``log_*``), to compare.

A refused request must change nothing: tests take a snapshot before it and after it and
assert the two are equal, row for row, on SQLite and on PostgreSQL.
"""

from __future__ import annotations

from api.database import Database

Snapshot = dict[str, list[str]]


def table_names(db: Database) -> list[str]:
    conn = db.connection()
    if db.dialect == "sqlite":
        rows = conn.all("SELECT name FROM sqlite_master WHERE type = 'table'")
    else:
        rows = conn.all(
            "SELECT table_name FROM information_schema.tables WHERE table_schema = current_schema()"
        )
    names = sorted(str(r[0]) for r in rows)
    # The rate limiter's buckets are accounting, not data: a refused upload still spends
    # its client's token, or refusals would be a free way to load the service. The leases
    # are the background work's (the clock's runner renews its own).
    accounting = ("api_rate_buckets", "api_leases")
    return [n for n in names if n.startswith(("api_", "log_")) and n not in accounting]


def snapshot(db: Database, names: list[str] | None = None) -> Snapshot:
    """Every row of every ``api_*`` and ``log_*`` table, as sorted text."""
    conn = db.connection()
    out: Snapshot = {}
    for name in names if names is not None else table_names(db):
        rows = conn.all(f"SELECT * FROM {name}")
        out[name] = sorted(
            repr(tuple(bytes(v) if isinstance(v, memoryview) else v for v in r)) for r in rows
        )
    return out


def changes(before: Snapshot, after: Snapshot) -> dict[str, tuple[list[str], list[str]]]:
    """Per table, the rows only before and the rows only after (empty when unchanged)."""
    out: dict[str, tuple[list[str], list[str]]] = {}
    for name in sorted(set(before) | set(after)):
        b, a = set(before.get(name, [])), set(after.get(name, []))
        if a != b or len(before.get(name, [])) != len(after.get(name, [])):
            out[name] = (sorted(b - a), sorted(a - b))
    return out
