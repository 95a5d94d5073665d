"""The clock on every seat (api/clock.py), on a real service with real bots: an event of
two tables with a time control of a few seconds a board, one seat of which stops acting.
It is warned, then expires, then the house plays its cards for the rest of each board;
every decision is a server event of the board's chain, the boards are marked for the
director (the findings), the event finishes and its certificate verifies in Python and
in the browser's verifier (Node). A server-signed card for a seat without an expiry is
refused by both (the forgery lists: tests/api/test_certificate_forgery.py, tests/js)."""

from __future__ import annotations

import random
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from api.signing import sign_read
from api.tournament_bot import TournamentBots

from .conftest import Running, start_service, stop_service
from .test_tournament_certificate import BEACON, verify

pytestmark = pytest.mark.xdist_group("clock")

SECONDS, WARNING = 5, 2
CLOCKED = {
    "name": "Clocked pairs",
    "format": "pairs-duplicate",
    "tables": 2,
    "boards_per_round": 2,
    "clock": {"seconds": SECONDS, "warning": WARNING},
}


def wait_for(what: str, test: Any, timeout: float = 60.0) -> Any:
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        got = test()
        if got:
            return got
        time.sleep(0.1)
    raise AssertionError(f"not seen in {timeout} s: {what}")


class Clocked:
    """A finished clocked event whose seat ``stalled`` (N at table 1) never acted."""

    def __init__(self, service: Running, tid: str, stalled: str, table: str, seen: Any) -> None:
        self.service = service
        self.tid = tid
        self.stalled = stalled
        self.table = table
        self.seen_while_playing = seen
        client = service.client()
        self.doc = client.call("GET", f"/v1/tournaments/{tid}")
        self.bundle = client.call_when_ready("GET", f"/v1/tournaments/{tid}/certificate/bundle")
        self.key = service.app.extensions["fairplay"].hand_log.signer.verifier_key()

    def chain(self, number: int) -> list[dict[str, Any]]:
        path = f"/v1/tables/{self.table}/hands/{number}/events"
        return [i["event"] for i in self.service.client().call("GET", path)["events"]]


def play_clocked(service: Running) -> Clocked:
    client = service.client()
    bots = TournamentBots.open(client, CLOCKED, 4, random.Random(5), BEACON)
    tid = bots.tid
    bots.reveal_all(client.call("GET", f"/v1/tournaments/{tid}"))
    doc = wait_for(
        "round 1",
        lambda: (d := client.call("GET", f"/v1/tournaments/{tid}"))["rounds_played"] and d,
    )
    sitting = next(t for t in doc["rounds_played"][0]["tables"] if t["table"] == 1)
    stalled = sitting["seats"]["N"]
    stalled_ident = bots.entrants.pop(stalled).ident  # its player stops acting: no call, no card
    # While the board is played, the stalled seat's own read shows its clock running out.
    path = f"/v1/tables/{sitting['id']}/hands/1"

    def warned() -> Any:
        auth = sign_read(stalled_ident.signer, stalled, "GET", path, int(time.time()))
        hand = client.call("GET", path, headers={"Authorization": auth})
        clock = hand.get("clock")
        return clock if clock and "N" in clock["warned"] else None

    seen = wait_for("the stalled seat warned", warned, timeout=60)
    assert bots.run(timeout=180)["phase"] == "over"
    return Clocked(service, tid, stalled, sitting["id"], seen)


@pytest.fixture(scope="module")
def clocked(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Clocked]:
    service = start_service(tmp_path_factory.mktemp("clock"))
    try:
        yield play_clocked(service)
    finally:
        stop_service(service)


def test_a_seat_that_stops_acting_is_warned_then_played_by_the_house(clocked: Clocked) -> None:
    seen = clocked.seen_while_playing
    assert seen["limit_ms"] == SECONDS * 1000 and seen["warning_ms"] == WARNING * 1000
    assert set(seen["remaining_ms"]) == {"N", "E", "S", "W"}
    assert seen["remaining_ms"]["N"] <= WARNING * 1000
    for number in (1, 2):
        chain = clocked.chain(number)
        kinds = [(e["type"], e["actor"], e["body"].get("seat")) for e in chain]
        warning = kinds.index(("clock_warning", "server", "N"))
        expired = kinds.index(("clock_expired", "server", "N"))
        assert warning < expired, kinds
        board = chain[0]["body"]["board"]
        for e in (chain[warning], chain[expired]):
            assert e["body"]["board"] == board
            assert e["body"]["limit_ms"] == SECONDS * 1000
        assert chain[expired]["body"]["used_ms"] >= SECONDS * 1000
        assert chain[warning]["body"]["used_ms"] >= (SECONDS - WARNING) * 1000
        # N's every call and card is the house's, after its expiry, naming N
        north = [
            (n, e)
            for n, e in enumerate(chain)
            if e["type"] in ("call", "play")
            and (e["actor"] == clocked.stalled or e["body"].get("seat") == "N")
        ]
        assert north and all(e["actor"] == "server" and n > expired for n, e in north), kinds
        assert sum(1 for _, e in north if e["type"] == "play") == 13
        assert chain[-1]["type"] == "end"


def test_the_boards_are_marked_for_the_director(clocked: Clocked) -> None:
    client = clocked.service.client()
    got = client.call("GET", f"/v1/tournaments/{clocked.tid}/findings", headers=client.admin())[
        "findings"
    ]
    # (a slow bot's seat may run out too on a loaded machine: N at table 1 is the test's)
    marks = [
        f
        for f in got
        if f["code"] == "HOUSE_PLAYED" and f["seat"] == "N" and f["table_id"] == clocked.table
    ]
    assert {(f["table_id"], f["board"]) for f in marks} == {
        (clocked.table, b) for b in {clocked.chain(n)[0]["body"]["board"] for n in (1, 2)}
    }, got
    for f in marks:
        assert f["evidence"]["cards"] == 13
        assert "played by the house after the clock ran out" in f["message"]
        assert f["severity"] == "warning"
    # the hand's own report says it too
    report = client.call("GET", f"/v1/tables/{clocked.table}/hands/1/report")
    assert any(f["code"] == "HOUSE_PLAYED" for f in report["report"]["findings"]), report


def test_the_event_finishes_and_its_certificate_verifies(
    clocked: Clocked, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert clocked.doc["phase"] == "over"
    cert = clocked.bundle["certificate"]
    assert any(f["code"] == "HOUSE_PLAYED" for f in cert["audit"]["findings"])
    assert cert["audit"]["verdict"] == "clean"  # a warning: the director's to rule on
    code, out = verify(clocked.bundle, clocked.key, tmp_path, capsys)
    assert code == 0, out


def test_the_browsers_verifier_accepts_the_house_after_the_expiry(
    clocked: Clocked, tmp_path: Path
) -> None:
    """The browser's certificate verifier (api/static/js/certificate.js, in Node) derives
    every hand, the house's cards after the logged expiry included, and accepts it."""
    from tests.js.test_verify_certificate import verify_in_node

    [result] = verify_in_node(tmp_path, clocked.key, [clocked.bundle])
    failed = [c for c in result["checks"] if c["ok"] is False]
    assert result["ok"] and not failed, failed


def test_two_hosts_run_one_clock_and_the_second_takes_it_over(
    make_service: Any, tmp_path: Path
) -> None:
    """Two services on one database: one holds the clock's lease and acts; when it stops
    mid-board, the other takes the lease over and expires the seat from the time the rows
    hold (not from when it took over), then the house plays it and the event goes on."""
    from api import rows

    a = make_service(data_dir=tmp_path / "one")
    b = make_service(data_dir=tmp_path / "one")
    for host in (a, b):
        host.client().call("GET", "/v1/log/key")  # each serves: its clock's thread starts
    ca, cb = (h.app.extensions["fairplay"].clock for h in (a, b))
    client = a.client()
    spec = dict(CLOCKED, boards_per_round=1, clock={"seconds": 4, "warning": 2})
    bots = TournamentBots.open(client, spec, 4, random.Random(8), BEACON)
    bots.reveal_all(client.call("GET", f"/v1/tournaments/{bots.tid}"))
    doc = wait_for(
        "round 1",
        lambda: (d := client.call("GET", f"/v1/tournaments/{bots.tid}"))["rounds_played"] and d,
    )
    sitting = next(t for t in doc["rounds_played"][0]["tables"] if t["table"] == 1)
    bots.entrants.pop(sitting["seats"]["N"])
    db = a.app.extensions["fairplay"].db

    def lease_holder() -> str:
        row = db.connection().one("SELECT owner FROM api_leases WHERE name = 'clock'")
        return "" if row is None else str(row[0])

    first = wait_for("a lease", lease_holder)
    holder, other = (ca, cb) if ca.owner == first else (cb, ca)
    assert holder.owner == first and holder.lease() and not other.lease()

    def hand() -> rows.HandRow:
        return rows.get_hand(db.connection(), sitting["id"], 1)

    wait_for("N warned", lambda: "N" in hand().clock.get("warned", []), 30)
    assert "N" not in hand().clock["expired"]
    holder.close()  # the holder's clock stops (its host going away)
    wait_for("the lease taken over", lambda: lease_holder() == other.owner, 30)
    wait_for("N expired", lambda: "N" in hand().clock.get("expired", []), 30)
    assert bots.run(timeout=120)["phase"] == "over"
    path = f"/v1/tables/{sitting['id']}/hands/1/events"
    chain = [i["event"] for i in client.call("GET", path)["events"]]
    # N's expiry logged once (a slow bot's seat may run out too on a loaded machine)
    expiries = [e for e in chain if e["type"] == "clock_expired" and e["body"]["seat"] == "N"]
    assert len(expiries) == 1, chain
    used = expiries[0]["body"]["used_ms"]
    assert 4000 <= used < 4000 + 15000, used  # counted from the board's start, in the rows
