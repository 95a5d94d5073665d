"""A tournament survives ``kill -9`` of its service at every step between two boards.

One Mitchell (3 tables, 2 boards a round, 2 rounds) is played by bots against real
``fairplay serve`` processes on one database, each started with
``FAIRPLAY_TEST_EXIT_AFTER_APPEND`` (api/faults.py) so that it dies, like ``kill -9`` of
its process group, at one point:

1. ``last``: a board's last card, its end and the table's next board are logged, the
   rows not written (the next board has no row);
2. ``round_over``: every table of round 1 has finished, the next round is not begun;
3. ``tournament_round_end``: round 1's end is logged, the event's row not saved;
4. ``tournament_round``: round 2 is logged, its tables do not exist;
5. ``board_open``: a table of round 2 exists and its first board is logged, its row not;
6. ``tournament_end``: the end of the event is logged, the event's row not saved.

Points 3 to 5 are reached by the start-up repair of the host before (each of those hosts
dies while it starts). After each death the next host starts on the same database; the
last one finishes the event. Nothing may be lost or done twice: every table plays both
its boards once, each round is logged once, and the certificate bundle verifies with
``fairplay tournament verify``.
"""

from __future__ import annotations

import contextlib
import http.client
import json
import random
import signal
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from api.client import Client, Identity
from api.tournament_bot import Entrant, TournamentBots, registration
from audit.log.events import event_hash
from tests.api.conftest import ADMIN, _drop_schema, _pg_schema_url
from tests.api.helpers import tournament_verify
from tests.api.test_two_hosts import Host

BEACON = {"source": "test-beacon", "round": 3, "randomness": "ef" * 32}
EVENT = {
    "name": "Crash pairs",
    "format": "pairs-duplicate",
    "tables": 3,
    "boards_per_round": 2,
    "rounds": 2,
}


@pytest.fixture(params=["sqlite", "postgresql"])
def database(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    if request.param == "sqlite":
        yield f"sqlite:///{tmp_path / 'fairplay.db'}"
        return
    pg_url: str = request.getfixturevalue("pg_url")
    url, schema = _pg_schema_url(pg_url)
    yield url
    _drop_schema(pg_url, schema)


def client_of(host: Host) -> Client:
    return Client(host.url, admin_token=ADMIN, rounds=0)  # a dead host fails at once


def played_until_killed(bots: TournamentBots, host: Host) -> None:
    """The bots play until ``host`` dies at its point (it must die, not finish)."""
    try:
        final = bots.run(timeout=120)
    except OSError:
        assert host.proc.wait(timeout=30) == -signal.SIGKILL
        return
    raise AssertionError(f"the host did not die; the event is {final['phase']}")


def test_a_tournament_survives_kill_9_between_boards_and_rounds(
    database: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    data = tmp_path / "data"
    hosts: list[Host] = []

    def start(point: str | None, *, dies_starting: bool = False) -> Host:
        host = Host(database, data, crash_at=point)
        hosts.append(host)
        if dies_starting:  # its start-up repair reaches the point
            assert host.proc.wait(timeout=60) == -signal.SIGKILL, point
            return host
        return host.wait_ready()

    try:
        host = start("last")
        client = client_of(host)
        bots = TournamentBots.open(client, EVENT, 6, random.Random(5), BEACON)
        tid = bots.tid
        path = f"/v1/tournaments/{tid}"
        played_until_killed(bots, host)  # 1. a board's end and the next board logged
        host = start("round_over")
        bots = TournamentBots(client_of(host), tid, bots.entrants, bots.rng)
        played_until_killed(bots, host)  # 2. round 1 over, round 2 not begun
        for point in ("tournament_round_end", "tournament_round", "board_open"):
            start(point, dies_starting=True)  # 3, 4, 5: in the start-up repair
        host = start("tournament_end")
        bots = TournamentBots(client_of(host), tid, bots.entrants, bots.rng)
        played_until_killed(bots, host)  # 6. the end logged, the row not saved
        host = start(None)
        client = client_of(host)
        final = client.call("GET", path)
        assert final["phase"] == "over", final["phase"]

        # nothing lost, nothing twice
        events = client.call("GET", f"{path}/events")["events"]
        kinds = [e["event"]["type"] for e in events]
        assert [kinds.count(k) for k in ("tournament_round", "tournament_round_end")] == [2, 2]
        assert kinds.count("tournament_end") == 1 and kinds[-1] == "tournament_end"
        assert [r["round"] for r in final["rounds_played"]] == [1, 2]
        assert all(r["over"] and not r["early"] for r in final["rounds_played"])
        for r in final["rounds_played"]:
            assert sorted(t["table"] for t in r["tables"]) == [1, 2, 3]
            for t in r["tables"]:
                hands = client.call("GET", f"/v1/tables/{t['id']}/hands")["hands"]
                assert [h["phase"] for h in hands] == ["over", "over"], (r["round"], t)
                for n in (1, 2):
                    chain = client.call("GET", f"/v1/tables/{t['id']}/hands/{n}/events")
                    ek = [e["event"]["type"] for e in chain["events"]]
                    assert ek[0] == "board_open" and ek[-1] == "end" and ek.count("end") == 1
                    assert chain["events"][0]["event"]["body"]["board"] == t["boards"][n - 1]
        records = client.call("GET", f"{path}/records")["records"]
        assert len(records) == 6 and all(len(r["hands"]) == 2 for r in records)

        # the certificate of the event verifies
        bundle = client.call_when_ready("GET", f"{path}/certificate/bundle")
        key = client.call("GET", "/v1/log/key").strip()
        code, said = tournament_verify(bundle, key, tmp_path, capsys)
        assert code == 0, said
        assert all(h["last"] == "end" for h in bundle["certificate"]["hands"])
        assert len(bundle["certificate"]["hands"]) == 12
    finally:
        for h in hosts:
            h.stop()


SMALL = {"name": "Crash entry", "format": "pairs-duplicate", "tables": 1, "boards_per_round": 1}


def dies_at(host: Host, client: Client, method: str, path: str, body: Any) -> None:
    """The request kills ``host`` (at its point, after the log took the event)."""
    with pytest.raises(OSError):
        client.call(method, path, body, client.admin())
    assert host.proc.wait(timeout=30) == -signal.SIGKILL


def test_registration_survives_kill_9_between_the_log_and_the_row(
    database: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Registration opened, the beacon, an entrant's registration, registration closed,
    the start: each logged by a host that dies before the event's row is saved. The next
    host's start-up repair brings the row up to the log, so the director carries on
    without repeating anything, and an entrant's retry of its registration is answered
    as the one the log took."""
    data = tmp_path / "data"
    hosts: list[Host] = []

    def start(point: str | None) -> tuple[Host, Client]:
        host = Host(database, data, crash_at=point).wait_ready()
        hosts.append(host)
        return host, client_of(host)

    try:
        host, client = start("tournament_registration")
        tid = client.call("POST", "/v1/tournaments", SMALL, client.admin())["id"]
        path = f"/v1/tournaments/{tid}"
        dies_at(host, client, "POST", f"{path}/registration", {"open": True})

        host, client = start("tournament_beacon")
        assert client.call("GET", path)["phase"] == "registration"  # the start-up repair
        dies_at(host, client, "POST", f"{path}/beacon", BEACON)

        host, client = start("tournament_register")
        assert client.call("GET", path)["beacon"] == BEACON
        origin = str(client.call("GET", "/healthz")["log_origin"])
        ids = {n: Identity.generate(n) for n in ("ann", "bob", "cy", "di")}
        partners = {"ann": "bob", "bob": "ann", "cy": "di", "di": "cy"}
        entrants = {
            ids[n].id: Entrant(ids[n], ids[partners[n]].id, bytes([i + 1]) * 32)
            for i, n in enumerate(ids)
        }
        events = {
            pid: registration(origin, tid, e.ident, e.partner, e.seed)
            for pid, e in entrants.items()
        }
        for n, ident in ids.items():
            client.register(ident, n)
        first = ids["ann"].id
        dies_at(host, client, "POST", f"{path}/entrants", events[first])

        host, client = start("tournament_registration")
        doc = client.call("GET", path)
        assert [e["player"] for e in doc["entrants"]] == [first]  # the start-up repair
        again = client.call("POST", f"{path}/entrants", events[first])  # the entrant retries
        assert again["hash"] == event_hash(events[first])
        for pid, event in events.items():
            if pid != first:
                client.call("POST", f"{path}/entrants", event)
        dies_at(host, client, "POST", f"{path}/registration", {"open": False})

        host, client = start("tournament_start")
        assert client.call("GET", path)["phase"] == "closed"
        dies_at(host, client, "POST", f"{path}/start", {})

        host, client = start(None)
        doc = client.call("GET", path)
        assert doc["phase"] == "revealing"
        assert [p["players"] for p in doc["pair_list"]] == [
            [ids["ann"].id, ids["bob"].id],
            [ids["cy"].id, ids["di"].id],
        ]
        final = TournamentBots(client, tid, entrants, random.Random(2)).run(timeout=60)
        assert final["phase"] == "over"

        chain = [e["event"]["type"] for e in client.call("GET", f"{path}/events")["events"]]
        assert chain[:5] == [
            "tournament_create",
            "tournament_registration",
            "tournament_beacon",
            "tournament_registration",
            "tournament_start",
        ]
        assert chain.count("tournament_registration") == 2 and chain[-1] == "tournament_end"
        bundle = client.call_when_ready("GET", f"{path}/certificate/bundle")
        key = client.call("GET", "/v1/log/key").strip()
        code, said = tournament_verify(bundle, key, tmp_path, capsys)
        assert code == 0, said
    finally:
        for h in hosts:
            h.stop()


def test_a_certificate_build_killed_is_built_again(
    database: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The host that logs the end of an event starts building its certificate bundle and
    dies during the build (``certificate_build``), its claim left in the database. The
    next host finds the claim's process gone, takes the build over and stores the bundle:
    the route answers 409 NOT_READY or the bundle, which verifies, the same bytes after."""
    from api.database import Database

    data = tmp_path / "data"
    hosts: list[Host] = []
    try:
        host = Host(database, data, crash_at="certificate_build").wait_ready()
        hosts.append(host)
        client = client_of(host)
        bots = TournamentBots.open(client, SMALL, 2, random.Random(7), BEACON)
        tid = bots.tid
        path = f"/v1/tournaments/{tid}"
        # the last card ends the event, and its build kills the host (maybe mid-answer)
        with contextlib.suppress(OSError, http.client.HTTPException):
            bots.run(timeout=60)
        assert host.proc.wait(timeout=30) == -signal.SIGKILL
        conn = Database(database).connection()
        claim = "SELECT 1 FROM api_builds WHERE kind = 'certificate' AND tournament_id = ?"
        assert conn.one(claim, (tid,)) is not None  # the dead build's claim
        stored = "SELECT 1 FROM api_certificates WHERE tournament_id = ?"
        assert conn.one(stored, (tid,)) is None

        host = Host(database, data).wait_ready()
        hosts.append(host)
        client = client_of(host)
        status = client.raw("GET", f"{path}/certificate/bundle")[0]
        assert status in (200, 409)
        bundle = client.call_when_ready("GET", f"{path}/certificate/bundle", timeout=60)
        again = client.raw("GET", f"{path}/certificate/bundle")
        assert again[0] == 200 and again[2] == client.raw("GET", f"{path}/certificate/bundle")[2]
        assert json.loads(again[2]) == bundle
        assert conn.one(claim, (tid,)) is None
        key = client.call("GET", "/v1/log/key").strip()
        code, said = tournament_verify(bundle, key, tmp_path, capsys)
        assert code == 0, said
        conn.close()
    finally:
        for h in hosts:
            h.stop()


ANALYSED = {
    "name": "Crash analysis",
    "format": "pairs-duplicate",
    "tables": 1,
    "boards_per_round": 2,
}


def test_an_analysis_build_killed_mid_way_is_finished_by_the_next_host(
    database: str, tmp_path: Path
) -> None:
    """The host that logs the end of an event starts analysing it and dies after the
    first hand (``analysis_hand``): its claim is left with its progress (1 of at least 2 hands),
    the hand it judged kept and no document stored. The next host finds the claim's
    process gone, takes the build over from the hand judged (202 with its progress
    meanwhile) and stores the document, which is what ``fairplay analyse`` gives on the
    event's bundle; the hands kept are then deleted."""
    from api.database import Database
    from tests.api.test_analysis import answer_when, offline_analysis, released

    data = tmp_path / "data"
    hosts: list[Host] = []
    try:
        host = Host(database, data, crash_at="analysis_hand").wait_ready()
        hosts.append(host)
        client = client_of(host)
        bots = TournamentBots.open(client, ANALYSED, 2, random.Random(7), BEACON)
        tid = bots.tid
        with contextlib.suppress(OSError, http.client.HTTPException):
            bots.run(timeout=60)
        assert host.proc.wait(timeout=30) == -signal.SIGKILL
        conn = Database(database).connection()
        claim = "SELECT done, total FROM api_builds WHERE kind = 'analysis' AND tournament_id = ?"
        row = conn.one(claim, (tid,))
        assert row is not None
        done, total = row
        assert done == 1 < total  # killed mid-way, its progress written
        assert conn.one("SELECT 1 FROM api_analyses WHERE tournament_id = ?", (tid,)) is None
        kept = "SELECT COUNT(*) FROM api_analysis_hands WHERE tournament_id = ?"
        assert conn.one(kept, (tid,)) == (1,)  # the hand it judged

        host = Host(database, data).wait_ready()
        hosts.append(host)
        client = host.client()
        path = f"/v1/tournaments/{tid}/analysis"
        status, headers, body = client.raw("GET", path)
        assert status in (200, 202), body
        if status == 202:
            assert headers["retry-after"] == "2" and json.loads(body)["status"] == "building"
        doc = json.loads(answer_when(client, path, 200)[2])
        assert doc["hands"] == total and released(conn, tid)
        assert {k: v for k, v in doc.items() if k != "tournament"} == offline_analysis(
            client, tid, tmp_path
        )
        assert conn.one(kept, (tid,)) == (0,)
        said = host.log.read_text(errors="replace")
        assert f"analysis of {tid}: 1 hands judged before, taken as judged" in said
        conn.close()
    finally:
        for h in hosts:
            h.stop()
