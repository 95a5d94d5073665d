"""Fixtures for the hand log: real Ed25519 keys, real SQLite files, real PostgreSQL schemas."""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from audit.log.events import event_hash, make_event, sign_event
from audit.log.keys import Signer, generate_signer

ORIGIN = "fairplay.test/log"


def pg_schema_url(pg_url: str, schema: str) -> str:
    sep = "&" if "?" in pg_url else "?"
    return f"{pg_url}{sep}schema={schema}"


def drop_schema(pg_url: str, schema: str) -> None:
    import psycopg

    with psycopg.connect(pg_url, autocommit=True) as conn:
        conn.execute(f'DROP SCHEMA IF EXISTS "{schema}" CASCADE')


@pytest.fixture
def pg_log_url(pg_url: str) -> Iterator[str]:
    """A fresh PostgreSQL schema for one test, dropped afterwards."""
    schema = f"logtest_{uuid.uuid4().hex[:12]}"
    try:
        yield pg_schema_url(pg_url, schema)
    finally:
        drop_schema(pg_url, schema)


@pytest.fixture(params=["sqlite", "postgresql"])
def log_url(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    """A fresh, empty log database of each backend."""
    if request.param == "sqlite":
        return f"sqlite:///{tmp_path / 'log.db'}"
    url: str = request.getfixturevalue("pg_log_url")
    return url


@pytest.fixture(scope="session")
def log_signer() -> Signer:
    return generate_signer(ORIGIN)


@pytest.fixture(scope="session")
def players() -> dict[str, Signer]:
    return {name: generate_signer(name) for name in ("north", "east", "south", "west")}


def hand_events(
    signers: list[Signer],
    table: str,
    hand: str,
    count: int,
    *,
    start: int = 0,
    prev: str | None = None,
    origin: str = ORIGIN,
) -> list[dict[str, Any]]:
    """``count`` chained events of one hand, signed in turn by ``signers``."""
    out = []
    for seq in range(start, start + count):
        s = signers[seq % len(signers)]
        ev = sign_event(
            make_event(
                origin=origin,
                table=table,
                hand=hand,
                seq=seq,
                prev=prev,
                actor=s.name,
                type="play",
                body={"card": seq % 52},
            ),
            s,
        )
        prev = event_hash(ev)
        out.append(ev)
    return out
