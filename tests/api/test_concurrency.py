"""Several services ("hosts") on one database, and racing requests on one hand.

Each service has its own caches and its own log connection, as separate hosts would.
Of two events racing for the same place in a hand exactly one is accepted; a service
whose cached view is stale rereads the hand instead of refusing a good event.
"""

from __future__ import annotations

import secrets
import threading
from pathlib import Path
from typing import Any

import pytest

from api.ceremony import seat_commitment
from api.client import ApiCallError, Client
from audit.log.events import event_hash, make_event, sign_event
from audit.rules.cards import Seat
from tests.api.conftest import ADMIN
from tests.api.helpers import SEATS, Table, error_of, open_table


@pytest.fixture
def two_hosts(make_service: Any, backend: str, tmp_path: Path) -> tuple[Any, Any]:
    shared = {"data_dir": str(tmp_path / "shared")}
    a = make_service(backend, **shared)
    b = make_service(backend, **shared)
    return a, b


def commitment(t: Table, seat: str) -> dict[str, str]:
    seed = secrets.token_bytes(32)
    t.seeds[seat] = seed
    return {"commitment": seat_commitment(seed, Seat.parse(seat), t.players[seat].id, t.id, 1)}


def test_racing_events_one_wins(two_hosts: tuple[Any, Any]) -> None:
    a, b = two_hosts
    t = open_table(a.client(), a.origin)
    h = t.hand()
    results: list[str] = []
    lock = threading.Lock()

    def post(seat: str, host: Any) -> None:
        c = Client(host.url, admin_token=ADMIN)
        try:
            c.act(
                t.players[seat],
                t.origin,
                t.id,
                1,
                h["next_seq"],
                h["last_hash"],
                "commit",
                commitment(t, seat),
            )
            outcome = "ok"
        except ApiCallError as exc:
            outcome = exc.error_code
        with lock:
            results.append(outcome)

    threads = [threading.Thread(target=post, args=(s, host)) for s in SEATS for host in (a, b)]
    for th in threads:
        th.start()
    for th in threads:
        th.join()
    assert results.count("ok") == 1
    assert set(results) - {"ok"} <= {"REPLAYED_EVENT", "CONFLICT"}
    after = t.hand()
    assert after["next_seq"] == h["next_seq"] + 1
    assert len(a.client().call("GET", f"/v1/tables/{t.id}/hands/1/events")["events"]) == 2


def test_hosts_take_turns_on_one_hand(two_hosts: tuple[Any, Any]) -> None:
    a, b = two_hosts
    t = open_table(a.client(), a.origin)
    on_b = Table(b.client(), t.origin, t.id, t.players, t.seeds)
    for i, seat in enumerate(SEATS):  # alternate hosts: each sees the other's progress
        (t if i % 2 == 0 else on_b).act(seat, "commit", commitment(t, seat))
    for i, seat in enumerate(SEATS):
        (on_b if i % 2 == 0 else t).act(seat, "reveal", {"seed": t.seeds[seat].hex()})
    assert t.hand()["phase"] == on_b.hand()["phase"] == "calling"
    t.act("N", "call", {"call": "grand"})
    for n in range(8):
        table = on_b if n % 2 == 0 else t
        seat = table.hand()["waiting_for"][0]
        table.act(seat, "play", {"card": table.cards(seat)["legal_plays"][0]})
    assert t.hand() == on_b.hand()
    assert len(t.hand()["play"]["tricks"]) == 2


def signed(t: Table, seat: str, kind: str, body: dict[str, Any], h: dict[str, Any]) -> Any:
    """One signed action at the head ``h`` shows, as a client would send it."""
    event = make_event(
        origin=t.origin,
        table=t.id,
        hand=1,
        seq=h["next_seq"],
        prev=h["last_hash"],
        actor=t.players[seat].id,
        type=kind,
        body=body,
    )
    return sign_event(event, t.players[seat].signer)


def test_the_same_event_sent_to_both_hosts_at_once_is_accepted_by_both(
    two_hosts: tuple[Any, Any],
) -> None:
    """Submitting an event the log already holds answers with its result, on any host:
    a race between two hosts for one signed event gives two successes, one log entry."""
    a, b = two_hosts
    t = open_table(a.client(), a.origin)
    path = f"/v1/tables/{t.id}/hands/1/events"

    def race(seat: str, kind: str, body: dict[str, Any]) -> None:
        h = t.hand()
        event = signed(t, seat, kind, body, h)
        answers: list[Any] = []

        def post(host: Any) -> None:
            try:
                answers.append(Client(host.url).call("POST", path, event))
            except ApiCallError as exc:
                answers.append(exc)

        threads = [threading.Thread(target=post, args=(host,)) for host in (a, b, a, b)]
        for th in threads:
            th.start()
        for th in threads:
            th.join()
        assert all(isinstance(x, dict) for x in answers), answers
        assert {(x["seq"], x["hash"]) for x in answers} == {(h["next_seq"], event_hash(event))}
        after = t.hand()
        assert after["next_seq"] == h["next_seq"] + 1
        assert after == b.client().hand(t.id, 1)

    for seat in SEATS:
        race(seat, "commit", commitment(t, seat))
    for seat in SEATS:
        race(seat, "reveal", {"seed": t.seeds[seat].hex()})
    race("N", "call", {"call": "grand"})
    for _ in range(12):
        seat = t.hand()["waiting_for"][0]
        race(seat, "play", {"card": t.cards(seat)["legal_plays"][0]})
    events = a.client().call("GET", f"/v1/tables/{t.id}/hands/1/events")["events"]
    assert [e["event"]["seq"] for e in events] == list(range(len(events)))
    assert len(events) == 1 + 4 + 4 + 1 + 12


def log_only(host: Any, t: Table, seat: str, kind: str, body: dict[str, Any]) -> None:
    """Append a seat's action to the log and die before the rows: the crash of a host."""
    host.app.extensions["fairplay"].hand_log.append([signed(t, seat, kind, body, t.hand())])


def test_a_host_that_died_after_its_append_wedges_no_table(two_hosts: tuple[Any, Any]) -> None:
    """The survivor brings the hand up to the log, whoever wrote it, then judges."""
    a, b = two_hosts
    t = open_table(b.client(), b.origin)
    t.act("N", "commit", commitment(t, "N"))
    log_only(a, t, "E", "commit", commitment(t, "E"))
    stale = t.hand()
    assert stale["waiting_for"] == ["E", "S", "W"]  # the rows do not know E's commit yet
    err = error_of(lambda: t.act("S", "commit", commitment(t, "S"), seq=stale["next_seq"]))
    assert err.error_code == "REPLAYED_EVENT"  # signed against the stale head: refused...
    assert t.hand()["waiting_for"] == ["S", "W"]  # ...but the hand is now the log's
    t.act("S", "commit", commitment(t, "S"))
    t.act("W", "commit", commitment(t, "W"))
    t.act("N", "reveal", {"seed": t.seeds["N"].hex()})
    log_only(a, t, "E", "reveal", {"seed": t.seeds["E"].hex()})
    # the same action sent again to the survivor answers with its logged result
    again = t.act("E", "reveal", {"seed": t.seeds["E"].hex()})  # at the stale head
    assert again["next_seq"] == t.hand()["next_seq"] == 7
    for seat in ("S", "W"):
        t.act(seat, "reveal", {"seed": t.seeds[seat].hex()})
    assert t.hand()["phase"] == "calling"


def test_a_void_after_a_host_died_is_judged_on_the_log(two_hosts: tuple[Any, Any]) -> None:
    a, b = two_hosts
    t = open_table(b.client(), b.origin)
    log_only(a, t, "N", "commit", commitment(t, "N"))
    c = b.client()
    done = c.call("POST", f"/v1/tables/{t.id}/hands/1/void", {"reason": "N left"}, c.admin())
    assert done["phase"] == "void"
    events = c.call("GET", f"/v1/tables/{t.id}/hands/1/events")["events"]
    assert [e["event"]["type"] for e in events] == ["open", "commit", "void"]
    assert events[-1]["event"]["body"]["missing"] == ["E", "S", "W"]
    assert t.hand(2)["phase"] == "committing"
