"""A finished event's product whose build fails (api/builds.py): the failure is kept, said
to whoever asks (503 BUILD_FAILED with its words and Retry-After), and the build is not
started again by every request; once the wait is over the next request starts it again,
and a build that then succeeds is stored and served as usual. On a real SQLite database
(its ``api_builds`` claims), in one process."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from api import builds as builds_module
from api.builds import Builds
from api.database import Database
from api.migrations import migrate
from audit.errors import BuildFailed, DatabaseUnavailable, InvalidInput


def _wait(cond: Callable[[], object], timeout: float = 10.0) -> None:
    deadline = time.monotonic() + timeout
    while not cond():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.01)


@pytest.fixture
def db(tmp_path: Path) -> Database:
    database = Database(f"sqlite:///{tmp_path / 'service.db'}")
    migrate(database)
    for tid in ("t1", "t2"):  # the events the claims name
        database.connection().execute(
            "INSERT INTO api_tournaments (id, doc, version, created_at) VALUES (?, '{}', 1, ?)",
            (tid, "2026-12-07T12:00:00Z"),
        )
    return database


def test_a_failed_build_is_said_and_not_started_again_until_its_wait_is_over(
    db: Database,
) -> None:
    stored: dict[str, str] = {}
    calls: list[str] = []
    failing = threading.Event()
    failing.set()

    def make(tid: str, progress: object) -> None:
        calls.append(tid)
        if failing.is_set():
            raise InvalidInput("records[3].hands[0]: not a hand")
        stored[tid] = "built"

    builds = Builds(
        db,
        "analysis",
        lambda: "2026-12-07T12:00:00Z",
        stored=lambda tid: tid in stored,
        make=make,
        failed_wait=0.5,
    )
    builds.serving()
    assert builds.ensure("t1") is False  # started in the background
    _wait(lambda: builds.failed("t1") is not None)
    _wait(lambda: builds.claim("t1") is None)  # its claim let go
    failure = builds.failed("t1")
    assert isinstance(failure, BuildFailed) and failure.code == "BUILD_FAILED"
    assert "records[3].hands[0]: not a hand" in failure.message  # the error's own words
    assert 1 <= failure.retry_after <= 1 and failure.details["tournament"] == "t1"
    # asked again and again within the wait: not started again
    for _ in range(5):
        assert builds.ensure("t1") is False
    builds.close()
    assert calls == ["t1"]
    # an internal error's words are not shown, only that it is logged
    other = Builds(
        db,
        "certificate",
        lambda: "2026-12-07T12:00:00Z",
        stored=lambda tid: False,
        make=lambda tid, progress: [][1],
    )
    other.serving()
    other.ensure("t2")
    _wait(lambda: other.failed("t2") is not None)
    failed = other.failed("t2")
    assert failed is not None and "an internal error, logged" in failed.message
    assert "IndexError" not in failed.message and failed.retry_after > 60
    other.close()
    # the wait over, the next request starts it again; built, it is served
    failing.clear()
    _wait(lambda: builds.failed("t1") is None, timeout=5)
    assert builds.ensure("t1") is False
    _wait(lambda: stored.get("t1") == "built")
    builds.close()
    assert builds.ensure("t1") is True and builds.failed("t1") is None
    assert calls == ["t1", "t1"]


def test_a_build_the_database_dropped_is_started_again_and_its_claim_let_go_once_back(
    db: Database, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The database goes away during a build: that is not the build's failure (the next
    request starts it again, no BUILD_FAILED), and its claim, which cannot be released while
    the database is away, is released as soon as it is back, not left for other hosts to
    wait out as stale."""
    monkeypatch.setattr(builds_module, "RELEASE_RETRY", 0.01)
    stored: dict[str, str] = {}
    away = threading.Event()
    away.set()

    def make(tid: str, progress: object) -> None:
        if away.is_set():
            raise DatabaseUnavailable("the database is unavailable", 1)
        stored[tid] = "built"

    builds = Builds(
        db, "certificate", lambda: "2026-12-07T12:00:00Z",
        stored=lambda tid: tid in stored, make=make,
    )  # fmt: skip
    release = builds._release
    refused: list[str] = []

    def flaky_release(tid: str) -> None:  # the database still away for three tries
        if len(refused) < 3:
            refused.append(tid)
            raise DatabaseUnavailable("the database is unavailable", 1)
        release(tid)

    monkeypatch.setattr(builds, "_release", flaky_release)
    builds.serving()
    assert builds.ensure("t1") is False
    _wait(lambda: builds.claim("t1") is None)  # let go after the tries the database refused
    assert refused == ["t1"] * 3
    assert builds.failed("t1") is None  # not a failure of the build: asked again, started
    away.clear()
    assert builds.ensure("t1") is False
    _wait(lambda: stored.get("t1") == "built")
    builds.close()
    assert builds.ensure("t1") is True and builds.claim("t1") is None
