"""Fixtures for the HTTP service: a real server on a free port, on SQLite or PostgreSQL."""

from __future__ import annotations

import logging
import secrets
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
        return str(self.app.extensions["fairplay"].ledger.origin)


def _pg_schema_url(pg_url: str) -> tuple[str, str]:
    schema = "api_t_" + secrets.token_hex(4)
    sep = "&" if "?" in pg_url else "?"
    return f"{pg_url}{sep}schema={schema}", schema


def _drop_schema(pg_url: str, schema: str) -> None:
    import psycopg

    with psycopg.connect(pg_url, autocommit=True) as conn:
        conn.execute(f'DROP SCHEMA IF EXISTS "{schema}" CASCADE')


@pytest.fixture
def make_service(tmp_path: Path) -> Iterator[Callable[..., Running]]:
    """Start services (``database="sqlite"`` or a PostgreSQL URL) that stop after the test."""
    started: list[Running] = []

    def start(database: str = "sqlite", **settings: Any) -> Running:
        config: dict[str, Any] = {
            "data_dir": str(tmp_path / f"data{len(started)}"),
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
        running = Running(app, url, server)
        started.append(running)
        return running

    yield start
    for r in started:
        r.server.shutdown()
        r.app.extensions["fairplay"].close()


@pytest.fixture(params=["sqlite", "postgresql"])
def backend(request: pytest.FixtureRequest) -> Iterator[str]:
    """``"sqlite"``, or a PostgreSQL URL with a fresh schema (dropped afterwards)."""
    if request.param == "sqlite":
        yield "sqlite"
        return
    pg_url: str = request.getfixturevalue("pg_url")
    url, schema = _pg_schema_url(pg_url)
    yield url
    _drop_schema(pg_url, schema)


@pytest.fixture
def service(make_service: Callable[..., Running]) -> Running:
    """One service on SQLite."""
    return make_service()
