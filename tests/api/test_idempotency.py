"""Creating an event has one effect however often it is sent (issue 18, part 3, item 1:
every director route, ``POST /v1/tournaments`` included): requests with one
``Idempotency-Key`` (api/idempotency.py) make one event and all get its answer, sent at
once to two services on one database or sent again after the answer was lost."""

from __future__ import annotations

import json
import threading
from collections.abc import Callable
from typing import Any

from .conftest import Running
from .helpers import at_once

SPEC = {"name": "Once", "format": "pairs-duplicate", "tables": 2, "boards_per_round": 1}


def events(client: Any) -> list[str]:
    return [t["id"] for t in client.call("GET", "/v1/tournaments")["tournaments"]]


def test_identical_creates_with_one_key_make_one_event(
    backend: str, make_service: Callable[..., Running], tmp_path: Any
) -> None:
    shared = str(tmp_path / "shared")  # one database (SQLite file or schema) and log key
    first = make_service(backend, data_dir=shared)
    services = (first, make_service(backend, data_dir=shared))
    client = first.client()
    headers = {**client.admin(), "Idempotency-Key": "create-8a1f"}
    answers: list[tuple[int, dict[str, str], bytes]] = []
    lock = threading.Lock()
    turn = iter(range(8))

    def send() -> tuple[int, Any]:
        status, hdrs, payload = (
            services[next(turn) % 2].client().raw("POST", "/v1/tournaments", SPEC, headers)
        )
        with lock:
            answers.append((status, hdrs, payload))
        return status, payload

    statuses = at_once(8, send)
    made = events(client)
    assert len(made) == 1, (statuses, made)
    # Each is the first answer, or asked to come back while the first is at work.
    firsts = [a for a in answers if a[0] == 201]
    assert firsts and all(a[0] in (201, 409) for a in answers), statuses
    assert {json.loads(a[2])["id"] for a in firsts} == set(made)
    assert {a[1]["location"] for a in firsts} == {f"/v1/tournaments/{made[0]}"}
    for status, hdrs, payload in answers:
        if status == 409:
            assert json.loads(payload)["code"] == "IDEMPOTENCY_KEY_IN_USE"
            assert hdrs["retry-after"] == "1"

    # Sent again later (its answer lost): the first answer, byte for byte, and no event.
    again = services[1].client().raw("POST", "/v1/tournaments", SPEC, headers)
    assert again[0] == 201 and again[2] == firsts[0][2]
    assert events(client) == made

    # The same key with another body names the header; nothing is made.
    other = client.raw("POST", "/v1/tournaments", {**SPEC, "name": "Other"}, headers)
    assert other[0] == 422 and json.loads(other[2])["code"] == "IDEMPOTENCY_KEY_REUSED"
    assert json.loads(other[2])["details"]["path"] == "Idempotency-Key"
    # Without a key, two creates are two events (as before); a bad key is named.
    client.call("POST", "/v1/tournaments", SPEC, client.admin())
    assert len(events(client)) == 2
    bad = client.raw("POST", "/v1/tournaments", SPEC, {**client.admin(), "Idempotency-Key": ""})
    assert bad[0] == 400 and json.loads(bad[2])["details"]["path"] == "Idempotency-Key"


def test_a_refused_create_releases_its_key(service: Running) -> None:
    client = service.client()
    headers = {**client.admin(), "Idempotency-Key": "k-2"}
    refused = client.raw("POST", "/v1/tournaments", {**SPEC, "tables": 0}, headers)
    assert refused[0] == 400, refused
    made = client.raw("POST", "/v1/tournaments", {**SPEC, "tables": 0}, headers)
    assert made[0] == 400  # tried again, not the stored refusal of a claim left behind
    assert events(client) == []
