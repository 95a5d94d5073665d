"""A host killed at each step of a tournament round's end: the other host, never
restarted, finishes the event (issue 24).

Two real ``fairplay serve`` hosts share one PostgreSQL schema. The first runs with
``FAIRPLAY_TEST_EXIT_AFTER_APPEND`` (api/faults.py) and dies, like ``kill -9`` of its
process group, at one point: ``round_over`` (every table of a round has finished, the
event not moved on), ``tournament_round_end`` (the round's end logged, the event's row
not saved), ``tournament_round`` (the next round logged, its tables not open) or
``board_open`` (a round's first board at a table logged, its row not). The bots' client
then goes on against the survivor, which must bring the event up to its log and move it
on: the next round starts and the event ends, each round logged once.
"""

from __future__ import annotations

import random
import signal
from collections.abc import Iterator
from pathlib import Path

import pytest

from api.client import Client
from api.tournament_bot import TournamentBots
from tests.api.conftest import ADMIN, _drop_schema, _pg_schema_url
from tests.api.test_two_hosts import Host

BEACON = {"source": "test-beacon", "round": 3, "randomness": "ab" * 32}
EVENT = {
    "name": "Round's end",
    "format": "pairs-duplicate",
    "tables": 2,
    "boards_per_round": 1,
    "rounds": 2,
}


@pytest.fixture
def database(pg_url: str) -> Iterator[str]:
    url, schema = _pg_schema_url(pg_url)
    yield url
    _drop_schema(pg_url, schema)


@pytest.mark.parametrize(
    "point", ["round_over", "tournament_round_end", "tournament_round", "board_open"]
)
def test_the_surviving_host_finishes_the_event(database: str, tmp_path: Path, point: str) -> None:
    survivor = Host(database, tmp_path).wait_ready()
    doomed = Host(database, tmp_path, crash_at=point).wait_ready()
    try:
        client = Client([doomed.url, survivor.url], admin_token=ADMIN, pause=0.05)
        bots = TournamentBots.open(client, EVENT, 4, random.Random(7), BEACON)
        final = bots.run(timeout=90)
        assert doomed.proc.wait(timeout=30) == -signal.SIGKILL, "the host did not die"
        assert survivor.proc.poll() is None
        assert client.current == 1  # the rest was played on the survivor
        assert final["phase"] == "over", final["phase"]
        events = client.call("GET", f"/v1/tournaments/{bots.tid}/events")["events"]
        kinds = [e["event"]["type"] for e in events]
        assert [kinds.count(k) for k in ("tournament_round", "tournament_round_end")] == [2, 2]
        assert kinds.count("tournament_end") == 1
        assert all(r["over"] and not r["early"] for r in final["rounds_played"])
        assert all("reason" not in r for r in final["rounds_played"])  # no director forced it
    finally:
        survivor.stop()
        doomed.stop()
