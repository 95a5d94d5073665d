"""The one migration runner (audit.log.migrator), used by the log and by the service.

Real SQLite files and PostgreSQL schemas; two real processes race to migrate one database.
Databases made by the code before the runner (its statements replayed here) open unchanged.
"""

from __future__ import annotations

import multiprocessing
import time
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from api.database import Database
from api.migrations import MIGRATIONS as API_MIGRATIONS
from api.migrations import current_version, migrate
from audit.log.backends import Backend, connect
from audit.log.migrations import LATEST_VERSION, SCHEMA_VERSION_TABLE
from audit.log.migrations import MIGRATIONS as LOG_MIGRATIONS
from audit.log.migrator import Migration, VersionTable, applied_versions, run
from audit.log.store import open_log
from tests.log.conftest import ORIGIN, drop_schema, pg_schema_url


@pytest.fixture(params=["sqlite", "postgresql"])
def db_url(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    if request.param == "sqlite":
        yield f"sqlite:///{tmp_path / 'db.sqlite'}"
        return
    pg_url: str = request.getfixturevalue("pg_url")
    schema = f"migtest_{uuid.uuid4().hex[:12]}"
    try:
        yield pg_schema_url(pg_url, schema)
    finally:
        drop_schema(pg_url, schema)


def _slow_stamp() -> float:
    time.sleep(0.2)  # widen the window in which a second, unlocked runner would interleave
    return time.time()


TOY_TABLE = VersionTable(
    name="toy_versions",
    create="CREATE TABLE IF NOT EXISTS toy_versions (version INTEGER PRIMARY KEY,"
    " name TEXT NOT NULL, applied_at DOUBLE PRECISION NOT NULL)",
    insert="INSERT INTO toy_versions (version, name, applied_at) VALUES (?, ?, ?)",
    stamp=_slow_stamp,
    pg_lock=("SELECT pg_advisory_xact_lock(hashtext(current_schema() || '.toy'))", ()),
)

TOY: tuple[Migration, ...] = (
    # No IF NOT EXISTS: applied twice, the second run fails.
    Migration.portable(1, "a table", ("CREATE TABLE toy_applied (version INTEGER NOT NULL)",)),
    Migration.portable(2, "a row", ("INSERT INTO toy_applied (version) VALUES (2)",)),
    Migration(
        3,
        "a dialect's own row",
        sqlite=("INSERT INTO toy_applied (version) VALUES (3)",),
        postgres=("INSERT INTO toy_applied (version) VALUES (-3)",),
    ),
)


def _race(url: str, start: Any, results: Any) -> None:
    db = connect(url)
    try:
        start.wait(30)
        results.put(("ok", run(db, TOY_TABLE, TOY)))
    except Exception as exc:  # reported to the parent, which fails the test
        results.put(("error", repr(exc)))
    finally:
        db.close()


def test_two_processes_starting_at_once_apply_each_migration_once(db_url: str) -> None:
    ctx = multiprocessing.get_context("spawn")
    start = ctx.Barrier(2)
    results = ctx.Queue()
    procs = [ctx.Process(target=_race, args=(db_url, start, results)) for _ in range(2)]
    for p in procs:
        p.start()
    outcomes = [results.get(timeout=60) for _ in procs]
    for p in procs:
        p.join(30)
    assert outcomes == [("ok", 3), ("ok", 3)]
    db = connect(db_url)
    try:
        applied = sorted(r[0] for r in db.query("SELECT version FROM toy_applied"))
        third = 3 if db.dialect == "sqlite" else -3
        assert applied == sorted([2, third])
        rows = db.query("SELECT version, name FROM toy_versions ORDER BY version")
        assert rows == [(1, "a table"), (2, "a row"), (3, "a dialect's own row")]
        # A later run finds nothing to do and reports the same version.
        assert run(db, TOY_TABLE, TOY) == 3
        assert len(db.query("SELECT version FROM toy_applied")) == 2
    finally:
        db.close()


def test_a_failing_migration_leaves_nothing_behind(db_url: str) -> None:
    broken = (*TOY[:2], Migration.portable(3, "broken", ("INSERT INTO no_such_table VALUES (1)",)))
    db = connect(db_url)
    try:
        with pytest.raises(Exception, match="no_such_table"):
            run(db, TOY_TABLE, broken)
        db.execute(TOY_TABLE.create)
        assert applied_versions(db, TOY_TABLE) == set()
        assert run(db, TOY_TABLE, TOY[:2]) == 2
        assert applied_versions(db, TOY_TABLE) == {1, 2}
    finally:
        db.close()


def test_migrations_out_of_order_are_refused(tmp_path: Path) -> None:
    db = connect(str(tmp_path / "x.db"))
    try:
        with pytest.raises(ValueError, match="toy_versions"):
            run(db, TOY_TABLE, (TOY[1], TOY[0]))
    finally:
        db.close()


# ------------------------------------------------ databases made before the one runner


def _old_log_apply(db: Backend, now: float) -> None:
    """The statements of the log's own runner before this one (audit/log/backends.py)."""
    db.execute(SCHEMA_VERSION_TABLE)
    for m in LOG_MIGRATIONS:
        for stmt in m.sqlite if db.kind == "sqlite" else m.postgres:
            db.execute(stmt)
        db.execute(
            "INSERT INTO log_schema_version (version, description, applied_at) VALUES (?, ?, ?)",
            (m.version, m.name, now),
        )


def test_a_log_made_before_the_runner_opens_with_the_same_versions(db_url: str) -> None:
    db = connect(db_url)
    try:
        _old_log_apply(db, 1234.5)
        db.execute("INSERT INTO log_meta (name, value) VALUES ('origin', ?)", (ORIGIN,))
    finally:
        db.close()
    with open_log(db_url, clock=lambda: 9999.0) as log:  # the stored origin
        assert log.origin == ORIGIN
        assert log.size() == 0
    db = connect(db_url)
    try:
        rows = db.query("SELECT version, description, applied_at FROM log_schema_version")
        assert sorted(rows) == [(m.version, m.name, 1234.5) for m in LOG_MIGRATIONS]
        assert max(r[0] for r in rows) == LATEST_VERSION
    finally:
        db.close()


def test_a_service_database_made_before_the_runner_opens_with_the_same_versions(
    db_url: str,
) -> None:
    database = Database(db_url)  # the same sqlite:/// and ?schema= URLs
    conn = database.connection()
    with conn.transaction():  # the service's own runner before this one (api/migrations.py)
        conn.execute(
            "CREATE TABLE IF NOT EXISTS api_schema_migrations ("
            "version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at TEXT NOT NULL)"
        )
        for m in API_MIGRATIONS:
            for statement in m.sqlite:
                conn.execute(statement)
            conn.execute(
                "INSERT INTO api_schema_migrations (version, name, applied_at) VALUES (?, ?, ?)",
                (m.version, m.name, "2024-01-01T00:00:00+00:00"),
            )
    before = conn.all("SELECT version, name, applied_at FROM api_schema_migrations")
    assert migrate(database) == API_MIGRATIONS[-1].version == current_version(conn)
    assert conn.all("SELECT version, name, applied_at FROM api_schema_migrations") == before
    database.close()
