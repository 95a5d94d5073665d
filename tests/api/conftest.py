"""Fixtures for the HTTP service: a real server on a free port, on SQLite or PostgreSQL.

Which to use in a new test:

- ``service``: one service on SQLite, started for the test and stopped after it.
- ``make_service``: ``make_service()`` on SQLite, ``make_service(backend)`` on the
  ``backend`` parameter (SQLite, then PostgreSQL), with any :class:`api.config.Config`
  setting as a keyword (``make_service(ceremony_timeout=60, clock=...)``); as many as the
  test needs (two hosts of one database), all stopped after it.
- ``backend``: parametrizes a test over ``"sqlite"`` and a PostgreSQL URL whose schema
  (``api_t_`` and random hex) is made for this test and dropped after it, so that tests
  run at once in several processes (``make test``: pytest-xdist) never meet.
- ``quick_checkpoints``: the commit thread signs within 0.5 s instead of 10 s, for a test
  that waits for a checkpoint no hand end made; name it before ``service``.

A test whose setup is long and that only reads (an event played to its end, then pages
read from it) shares one service in a ``scope="module"`` fixture instead, served with
:func:`tests.api.serving.serve` or :class:`tests.api.serving.TestServer` (as
``test_tournament_pages.py`` and ``test_play_browser.py`` do); never werkzeug's
``make_server``, whose shutdown idles half a second. Starting a service is cheap (about
40 ms on SQLite and 120 ms on PostgreSQL, migrations included), so a test that writes gets
its own. Tests run in several processes: a test must not use a fixed port, file or schema
name; ``tests.api.helpers.free_port`` and ``tmp_path`` give private ones.
"""

from __future__ import annotations

import logging
import secrets
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from flask import Flask

from api import create_app
from api.client import Client
from tests.api.serving import TestServer, serve

ADMIN = "admin-secret-for-tests"

logging.getLogger("werkzeug").setLevel(logging.WARNING)  # no line per request in test output


@dataclass
class Running:
    """A service running in this process on a real socket."""

    app: Flask
    url: str
    server: TestServer

    def client(self, admin: bool = True) -> Client:
        return Client(self.url, admin_token=ADMIN if admin else "")

    @property
    def origin(self) -> str:
        return str(self.app.extensions["fairplay"].hand_log.origin)


def _pg_schema_url(pg_url: str) -> tuple[str, str]:
    schema = "api_t_" + secrets.token_hex(4)
    sep = "&" if "?" in pg_url else "?"
    return f"{pg_url}{sep}schema={schema}", schema


def _drop_schema(pg_url: str, schema: str) -> None:
    import psycopg

    # A service's last background work (a clock's lease, a build) may still hold a lock in
    # the schema as it is dropped; PostgreSQL then ends one side as a deadlock: drop again.
    for attempt in range(5):
        try:
            with psycopg.connect(pg_url, autocommit=True) as conn:
                conn.execute(f'DROP SCHEMA IF EXISTS "{schema}" CASCADE')
            return
        except psycopg.errors.DeadlockDetected:
            if attempt == 4:
                raise
            time.sleep(0.2)


def start_service(data_dir: Path, database: str = "sqlite", **settings: Any) -> Running:
    """A service with the tests' configuration (``database="sqlite"`` or a PostgreSQL URL),
    serving on a free port until :func:`stop_service`."""
    config: dict[str, Any] = {
        "data_dir": str(data_dir),
        "admin_token": ADMIN,
        "testing": True,
        # Many uploads from one address; tests/api/test_uploads.py sets its own limits.
        "upload_per_hour": 0,
        "register_per_hour": 0,
    }
    if database != "sqlite":
        config["database_url"] = database
    config.update(settings)
    app = create_app(config)
    server, url = serve(app)
    return Running(app, url, server)


def stop_service(running: Running) -> None:
    running.server.shutdown()
    running.app.extensions["fairplay"].close()


STARTED = pytest.StashKey[list[Running]]()
"""The services :func:`make_service` started for a test and has not stopped yet."""


def stop_started(node: pytest.Item) -> None:
    """Stop the services :func:`make_service` started for ``node`` that still run, in the
    order they started."""
    started = node.stash.get(STARTED, [])
    while started:
        stop_service(started.pop(0))


@pytest.fixture
def make_service(
    request: pytest.FixtureRequest, tmp_path: Path
) -> Iterator[Callable[..., Running]]:
    """Start services (``database="sqlite"`` or a PostgreSQL URL) that stop after the test."""
    started: list[Running] = []
    request.node.stash[STARTED] = started

    def start(database: str = "sqlite", **settings: Any) -> Running:
        # a test may name the data folder (two services sharing one database file and key)
        data_dir = settings.pop("data_dir", tmp_path / f"data{len(started)}")
        running = start_service(data_dir, database, **settings)
        started.append(running)
        return running

    yield start
    stop_started(request.node)


@pytest.fixture(params=["sqlite", "postgresql"])
def backend(request: pytest.FixtureRequest) -> Iterator[str]:
    """``"sqlite"``, or a PostgreSQL URL with a fresh schema (dropped afterwards)."""
    yield from backend_of(request)


def backend_of(request: pytest.FixtureRequest) -> Iterator[str]:
    """What :func:`backend` yields for ``request.param``, for a fixture of a wider scope
    parametrized over the two backends (``params=["sqlite", "postgresql"]``)."""
    if request.param == "sqlite":
        yield "sqlite"
        return
    pg_url: str = request.getfixturevalue("pg_url")
    url, schema = _pg_schema_url(pg_url)
    yield url
    # A test that names make_service before backend has its services still running here
    # (fixtures end in the reverse order of their start): stopped first, since one whose
    # thread opened a connection after the drop made the schema again, empty, and left it
    # (CREATE SCHEMA IF NOT EXISTS in api/database.py), some ten a run of the suite.
    if isinstance(request.node, pytest.Item):
        stop_started(request.node)
    _drop_schema(pg_url, schema)


@pytest.fixture
def quick_checkpoints(monkeypatch: pytest.MonkeyPatch) -> float:
    """The commit thread signs within 0.5 s of an append no checkpoint covers (the service's
    interval is 10 s), for a test that waits for such a checkpoint: name it before
    ``service`` (or call ``make_service`` after it), since a service reads the interval
    when it starts. The interval itself."""
    from api import hand_log

    monkeypatch.setattr(hand_log, "CHECKPOINT_INTERVAL", 0.5)
    return 0.5


@pytest.fixture
def service(make_service: Callable[..., Running]) -> Running:
    """One service on SQLite."""
    return make_service()
