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
from audit.cards import Seat
from tests.api.conftest import ADMIN
from tests.api.helpers import SEATS, Table, open_table


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
