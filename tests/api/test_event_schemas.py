"""Only exact events reach the log: each type's JSON Schema, checked before anything is signed.

Every refusal is a 400/422 in the JSON error shape whose ``details.path`` names the field,
and leaves every row of the database (the service's and the log's) exactly as it was.
"""

from __future__ import annotations

import base64
import http.client
import json
import random
from collections.abc import Callable
from typing import Any
from urllib.parse import urlparse

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from api.bot import TableBots
from api.ceremony import seat_commitment
from api.client import Identity
from audit.log.events import make_event, sign_event, signing_input
from audit.log.schemas import CAYENNE_TYPES, check_cayenne_event
from audit.rules.cards import Seat
from tests.api.conftest import Running
from tests.api.helpers import SEATS, Table, error_of, open_table

Dump = dict[str, list[str]]


def db_dump(service: Running) -> Dump:
    """Every row of every table of the service's database (its own and the log's)."""
    conn = service.app.extensions["fairplay"].db.connection()
    if conn.dialect == "sqlite":
        names = [r[0] for r in conn.all("SELECT name FROM sqlite_master WHERE type = 'table'")]
    else:
        names = [
            r[0]
            for r in conn.all(
                "SELECT table_name FROM information_schema.tables"
                " WHERE table_schema = current_schema()"
            )
        ]
    return {n: sorted(map(repr, conn.all(f'SELECT * FROM "{n}"'))) for n in sorted(names)}


@pytest.fixture
def served(make_service: Callable[..., Running], backend: str) -> Running:
    return make_service(backend)


@pytest.fixture
def table(served: Running) -> Table:
    return open_table(served.client(), served.origin)


def post_event(t: Table, seat: str, kind: str, body: dict[str, Any], **extra: Any) -> Any:
    """Sign ``extra`` fields into an event of ``seat`` and post it (signed by hand, since
    ``sign_event`` itself refuses what the log would refuse)."""
    h = t.hand()
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
    event.update(extra)
    ident = t.players[seat]
    signed = dict(event, key=ident.signer.verifier_key())
    signed["signature"] = base64.b64encode(ident.signer.sign(signing_input(signed))).decode()
    return t.client.call("POST", f"/v1/tables/{t.id}/hands/1/events", signed)


def refused(service: Running, call: Callable[[], Any], status: int, code: str, path: str) -> str:
    before = db_dump(service)
    err = error_of(call)
    body = err.details["body"]
    assert (err.status, body["code"], body["details"].get("path")) == (status, code, path), body
    assert set(body) == {"code", "message", "details"}
    assert db_dump(service) == before
    return str(body["message"])


def commitment(t: Table, seat: str, seed: bytes = b"\x07" * 32) -> str:
    return seat_commitment(seed, Seat.parse(seat), t.players[seat].id, t.id, 1)


JUNK = [
    # (fields added to the event, body, JSON path named)
    ({}, {"commitment": "a" * 64, "note": "hi"}, "event.body.note"),
    ({}, {"commitment": "a" * 64, "x": "j" * 200_000}, "event.body.x"),
    ({}, {}, "event.body.commitment"),
    ({}, {"commitment": 7}, "event.body.commitment"),
    ({}, {"commitment": ["a" * 64]}, "event.body.commitment"),
    ({}, {"commitment": "A" * 64}, "event.body.commitment"),
    ({"time": "yesterday"}, None, "event.time"),
    ({"time": "2024-05-01 12:30:00Z"}, None, "event.time"),
    ({"time": "2024-05-01T12:30:00+02:00"}, None, "event.time"),
    ({"time": "2024-02-30T12:30:00Z"}, None, "event.time"),
    ({"time": "2024-05-01T12:30:00.1234567891Z"}, None, "event.time"),
    ({"time": 1714566600}, None, "event.time"),
    ({"table": "t" * 129}, None, "event.table"),
]


@pytest.mark.parametrize(("extra", "body", "path"), JUNK)
def test_junk_in_an_event_is_refused_and_changes_nothing(
    served: Running, table: Table, extra: dict[str, Any], body: Any, path: str
) -> None:
    t = table
    good = {"commitment": commitment(t, "N")}
    refused(
        served,
        lambda: post_event(t, "N", "commit", good if body is None else body, **extra),
        400,
        "BAD_REQUEST",
        path,
    )
    post_event(t, "N", "commit", good)  # the same seat, the same hand: fine when exact


def test_bodies_of_each_player_type_are_exact(served: Running, table: Table) -> None:
    t = table
    seeds = {s: bytes([i + 1]) * 32 for i, s in enumerate(SEATS)}
    for s in SEATS:
        post_event(t, s, "commit", {"commitment": commitment(t, s, seeds[s])})
    refused(
        served,
        lambda: post_event(t, "N", "reveal", {"seed": "ab" * 15}),
        400,
        "BAD_REQUEST",
        "event.body.seed",
    )
    for s in SEATS:
        post_event(t, s, "reveal", {"seed": seeds[s].hex()})
    refused(
        served,
        lambda: post_event(t, "N", "call", {"call": "pass", "comment": "gl"}),
        400,
        "BAD_REQUEST",
        "event.body.comment",
    )
    refused(
        served,
        lambda: post_event(t, "N", "call", {"call": "p" * 300}),
        400,
        "BAD_REQUEST",
        "event.body.call",
    )
    post_event(t, "N", "call", {"call": "grand"}, time="2024-05-01T12:30:00.250Z")
    held = t.cards("E")["legal_plays"]
    refused(
        served,
        lambda: post_event(t, "E", "play", {"card": held[0], "ace_high": "yes"}),
        400,
        "BAD_REQUEST",
        "event.body.ace_high",
    )
    refused(
        served,
        lambda: post_event(t, "E", "play", {"card": 12}),
        400,
        "BAD_REQUEST",
        "event.body.card",
    )
    post_event(t, "E", "play", {"card": held[0]})


def test_a_key_named_twice_is_refused(served: Running, table: Table) -> None:
    t = table
    h = t.hand()
    ident = t.players["N"]
    event = sign_event(
        make_event(
            origin=t.origin,
            table=t.id,
            hand=1,
            seq=h["next_seq"],
            prev=h["last_hash"],
            actor=ident.id,
            type="commit",
            body={"commitment": commitment(t, "N")},
        ),
        ident.signer,
    )
    text = json.dumps(event)
    # A second "body" after the signed one: parsers disagree on which one wins.
    forged = text[:-1] + ', "body": {"commitment": "' + "b" * 64 + '"}}'
    u = urlparse(served.url)
    before = db_dump(served)
    conn = http.client.HTTPConnection(u.hostname or "", u.port or 80, timeout=30)
    conn.request(
        "POST",
        f"/v1/tables/{t.id}/hands/1/events",
        body=forged.encode(),
        headers={"Content-Type": "application/json"},
    )
    resp = conn.getresponse()
    answer = json.loads(resp.read())
    conn.close()
    assert resp.status == 400 and answer["code"] == "BAD_REQUEST", answer
    assert "duplicate key 'body'" in answer["message"] and answer["details"]["path"] == "event"
    assert db_dump(served) == before


def test_a_ruleset_takes_only_known_settings(served: Running) -> None:
    c = served.client()
    players = {s: Identity.generate(s) for s in SEATS}
    for s, i in players.items():
        c.register(i, s)
    seats = {s: i.id for s, i in players.items()}
    for ruleset, path in [
        ({"seven_iz": "double"}, "ruleset.seven_iz"),
        ({"x-house": "j" * 1000}, "ruleset.x-house"),
        ({"seven_is": "triple"}, "ruleset.seven_is"),
        ({"deal_pattern": "445"}, "ruleset.deal_pattern"),
    ]:
        refused(
            served,
            lambda ruleset=ruleset: c.create_table(seats, ruleset=ruleset),
            422,
            "INVALID_RULESET",
            path,
        )
    table = c.create_table(seats, ruleset={"seven_is": "double"})
    assert table["ruleset"] == {
        "deal_pattern": [4, 4, 5],
        "seven_is": "double",
        "default_penalty": "tricks",
    }


def test_a_copied_commitment_is_refused_over_http(served: Running, table: Table) -> None:
    """The Keybase flip bug: a copy lets a seat mirror another's seed, or force a void."""
    t = table
    n_commit = commitment(t, "N")
    t.act("N", "commit", {"commitment": n_commit})
    message = refused(
        served,
        lambda: t.act("W", "commit", {"commitment": n_commit}),
        422,
        "COMMITMENT_COPIED",
        "event.body.commitment",
    )
    assert "copy of N's" in message
    server = t.hand()["ceremony"]["server_commitment"]
    refused(
        served,
        lambda: t.act("E", "commit", {"commitment": server}),
        422,
        "COMMITMENT_COPIED",
        "event.body.commitment",
    )
    t.act("W", "commit", {"commitment": commitment(t, "W", b"\x08" * 32)})
    assert t.hand()["waiting_for"] == ["E", "S"]


@settings(
    max_examples=4,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)
@given(seed=st.integers(0, 2**32 - 1))
def test_every_event_of_a_played_hand_fits_its_schema(
    make_service: Callable[..., Running], seed: int
) -> None:
    service = make_service()
    rng = random.Random(seed)
    ruleset = rng.choice([None, {"deal_pattern": [6, 7]}, {"deal_pattern": [1] * 13}])
    bots = TableBots.open(service.client(), rng, ruleset=ruleset)
    bots.play_hand(1)
    c = service.client()
    c.call("POST", f"/v1/tables/{bots.table}/hands/2/void", {"reason": "property test"}, c.admin())
    kinds: set[str] = set()
    for number in (1, 2, 3):
        for item in c.call("GET", f"/v1/tables/{bots.table}/hands/{number}/events")["events"]:
            check_cayenne_event(item["event"])
            kinds.add(item["event"]["type"])
    # claims and the table's chat are people's: these bots never claim nor talk
    assert kinds == set(CAYENNE_TYPES) - {"claim", "claim_answer", "chat"}
