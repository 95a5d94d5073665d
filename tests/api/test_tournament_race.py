"""Two services on one database end a tournament's round at the same moment.

Two apps (each with its own log, locks and connections, like two gunicorn workers or two
hosts) share one SQLite file or one PostgreSQL schema and one log key. Bots play a
Mitchell through the first; whenever the last board of a round ends there, that request
waits at ``round_over`` (:func:`api.faults.hold`) until the second service, told that a
table of the round finished, reaches the same point: both have read the event's row with
the round being played and both move it on at once (the round's end, the next round, the
event's end). Each step must be logged once, the event must finish, and its certificate
must verify with ``fairplay tournament verify``.
"""

from __future__ import annotations

import random
import threading
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from api import faults
from api.tournament import Tournaments
from api.tournament_bot import TournamentBots
from audit.errors import FairplayError

from .conftest import Running
from .helpers import tournament_verify

BEACON = {"source": "test-beacon", "round": 11, "randomness": "ab" * 32}
EVENT = {
    "name": "Race pairs",
    "format": "pairs-duplicate",
    "tables": 3,
    "boards_per_round": 1,
    "rounds": 3,
}


def tournaments(service: Running) -> Tournaments:
    t = service.app.extensions["fairplay"].tournaments
    assert isinstance(t, Tournaments)
    return t


def test_two_services_ending_a_round_at_once_log_each_step_once(
    backend: str,
    make_service: Callable[..., Running],
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    shared = str(tmp_path / "shared")  # one database file (SQLite) and one log key
    first = make_service(backend, data_dir=shared)
    second = make_service(backend, data_dir=shared)
    client = first.client()
    admin = client.admin()
    tid = client.call("POST", "/v1/tournaments", EVENT, admin)["id"]
    path = f"/v1/tournaments/{tid}"
    client.call("POST", f"{path}/registration", {"open": True}, admin)
    client.call("POST", f"{path}/beacon", BEACON, admin)
    bots = TournamentBots(client, tid, {}, random.Random(3), pause=0.005)
    bots.enter_pairs(6)
    client.call("POST", f"{path}/registration", {"open": False}, admin)
    client.call("POST", f"{path}/start", {}, admin)

    meet = threading.Barrier(2, timeout=20)
    races: list[int] = []
    done = threading.Event()
    failures: list[BaseException] = []

    def at_round_over() -> None:
        meet.wait()
        # Round 1: both at once. Round 2: the second service a moment after the first
        # (it read the row before the first logged the end); round 3: the other way.
        me = "second" if threading.current_thread() is prodder else "first"
        if {2: "second", 3: "first"}.get(len(races)) == me:
            time.sleep(0.3)

    def the_other_service() -> None:
        """When the first service waits at ``round_over``, the second takes its step."""
        other = tournaments(second)
        while not done.is_set():
            if meet.n_waiting != 1:
                done.wait(0.005)
                continue
            doc = other.load(tid)
            races.append(doc["round"])
            try:
                other.hand_ended(doc["rounds_played"][-1]["tables"][0]["id"])
            except FairplayError:
                pass  # the other service's step stands or fails on its own
            except BaseException as exc:
                failures.append(exc)
                meet.abort()
                return

    faults.hold("round_over", at_round_over)
    prodder = threading.Thread(target=the_other_service, daemon=True)
    prodder.start()
    try:
        final = bots.run(timeout=60)
    finally:
        done.set()
        faults.hold("round_over", None)
        prodder.join(timeout=30)
    assert not failures, failures
    assert races == [1, 2, 3]  # each round's end was raced by both services
    assert final["phase"] == "over"

    events = client.call("GET", f"{path}/events")["events"]
    chain = [e["event"] for e in events]
    assert [e["seq"] for e in chain] == list(range(len(chain)))
    rounds = [e["body"]["round"] for e in chain if e["type"] == "tournament_round"]
    ends = [e["body"]["round"] for e in chain if e["type"] == "tournament_round_end"]
    assert rounds == [1, 2, 3] and ends == [1, 2, 3], [e["type"] for e in chain]
    assert [e["type"] for e in chain].count("tournament_end") == 1
    assert chain[-1]["type"] == "tournament_end"
    for service in (first, second):  # both rows agree with the log
        doc = tournaments(service).load(tid)
        assert doc["phase"] == "over"
        assert [r["over"] for r in doc["rounds_played"]] == [True, True, True]
        for r in doc["rounds_played"]:
            for t in r["tables"]:
                hands = client.call("GET", f"/v1/tables/{t['id']}/hands")["hands"]
                assert [h["phase"] for h in hands] == ["over"], (r["round"], t["table"])

    bundle = client.call_when_ready("GET", f"{path}/certificate/bundle")
    key = client.call("GET", "/v1/log/key").strip()
    code, said = tournament_verify(bundle, key, tmp_path, capsys)
    assert code == 0, said
    assert len(bundle["certificate"]["hands"]) == 9
