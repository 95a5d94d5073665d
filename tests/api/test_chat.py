"""A table's chat on the real server: messages signed by seated players, in the table's own
chain of the log; on at an ordinary table unless its creator turned it off, off at an
event's unless it turned it on;
length- and rate-limited; to the whole table (never to one seat)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from api.chat import RATE_COUNT
from api.client import Client, Identity
from audit.log.events import make_event, sign_event

from .conftest import Running, start_service, stop_service
from .helpers import Table, error_of, open_table, signed_write


@pytest.fixture(scope="module")
def running(tmp_path_factory: pytest.TempPathFactory) -> Any:
    service = start_service(tmp_path_factory.mktemp("chat"))
    yield service
    stop_service(service)


def say(c: Client, origin: str, table: str, who: Identity, text: str, **over: Any) -> Any:
    if "seq" not in over:
        head = c.call("GET", f"/v1/tables/{table}/chat")
        over |= {"seq": head["next_seq"], "prev": head["last_hash"]}
    event = make_event(
        origin=origin,
        table=table,
        hand="chat",
        seq=over.pop("seq"),
        prev=over.pop("prev", None),
        actor=who.id,
        type=over.pop("type", "chat"),
        body={"text": text},
    )
    return c.call("POST", f"/v1/tables/{table}/chat", sign_event(event, who.signer))


def test_seated_players_talk_to_the_whole_table_in_the_log(running: Running) -> None:
    t = open_table(running.client(), running.origin, "chat")
    c = t.client
    assert c.call("GET", f"/v1/tables/{t.id}/chat")["enabled"] is True
    say(c, t.origin, t.id, t.players["N"], "Good luck, partner <b>and</b> all")
    say(c, t.origin, t.id, t.players["E"], "Merci & bonne chance")
    chat = c.call("GET", f"/v1/tables/{t.id}/chat")
    assert [(m["seat"], m["text"]) for m in chat["messages"]] == [
        ("N", "Good luck, partner <b>and</b> all"),
        ("E", "Merci & bonne chance"),
    ]
    assert chat["next_seq"] == 2
    # each message is in the log, signed by its writer, in the table's chain "chat"
    logged = running.app.extensions["fairplay"].hand_log.log.hand_events(t.id, "chat")
    assert [e["event"]["actor"] for e in logged] == [t.players["N"].id, t.players["E"].id]
    assert [e["event"]["key"] for e in logged] == [
        t.players["N"].signer.verifier_key(),
        t.players["E"].signer.verifier_key(),
    ]


def test_who_may_write_and_what(running: Running) -> None:
    t = open_table(running.client(), running.origin, "chat-rules")
    c = t.client
    stranger = Identity.generate("stranger")
    c.register(stranger, "stranger")
    assert error_of(lambda: say(c, t.origin, t.id, stranger, "hello")).status == 403
    too_long = error_of(lambda: say(c, t.origin, t.id, t.players["S"], "x" * 301))
    assert too_long.status == 400 and "event.body.text" in too_long.message
    bell = error_of(lambda: say(c, t.origin, t.id, t.players["S"], "ding\x07"))
    assert bell.status == 400 and "event.body.text" in bell.message
    assert (
        error_of(lambda: say(c, t.origin, t.id, t.players["S"], "hi", seq=5, prev="0" * 64)).status
        == 409
    )
    # a message is not a hand's event, nor a hand's event a message
    assert error_of(lambda: say(c, t.origin, t.id, t.players["S"], "x", type="play")).status == 400


def test_a_player_is_rate_limited(running: Running) -> None:
    t = open_table(running.client(), running.origin, "chat-rate")
    for n in range(RATE_COUNT):
        say(t.client, t.origin, t.id, t.players["W"], f"message {n}")
    exc = error_of(lambda: say(t.client, t.origin, t.id, t.players["W"], "one too many"))
    assert exc.status == 429
    say(t.client, t.origin, t.id, t.players["N"], "another player is not")


def _event_table(running: Running, chat: bool | None) -> Table:
    """A one-table duplicate event's table, with its four players' keys."""
    import random

    from api.tournament_bot import TournamentBots

    c = running.client()
    spec: dict[str, Any] = {"name": "chat ev", "format": "pairs-duplicate", "tables": 1}
    spec |= {"boards_per_round": 1}
    if chat is not None:
        spec["chat"] = chat
    beacon = {"source": "b", "round": 1, "randomness": "ab" * 32}
    bots = TournamentBots.open(c, spec, 2, random.Random(3), beacon)
    doc = c.call("GET", f"/v1/tournaments/{bots.tid}")
    bots.reveal_all(doc)
    deadline = 0
    while True:
        doc = c.call("GET", f"/v1/tournaments/{bots.tid}")
        if doc.get("rounds_played"):
            break
        deadline += 1
        assert deadline < 200
        import time

        time.sleep(0.05)
    sitting = doc["rounds_played"][0]["tables"][0]
    players = {s: bots.entrants[p].ident for s, p in sitting["seats"].items()}
    return Table(c, running.origin, sitting["id"], players)


@pytest.mark.parametrize("chat", [None, True])
def test_an_events_tables_have_chat_only_when_it_is_turned_on(
    running: Running, chat: bool | None
) -> None:
    t = _event_table(running, chat)
    first = {"seq": 0, "prev": None}  # the tables are private: no unsigned read of the head
    if chat:
        say(t.client, t.origin, t.id, t.players["N"], "hello table", **first)
        return
    exc = error_of(lambda: say(t.client, t.origin, t.id, t.players["N"], "hello", **first))
    assert exc.status == 403 and "chat is off" in exc.message


def test_a_tables_creator_may_turn_its_chat_off(
    make_service: Callable[..., Running], backend: str
) -> None:
    """On SQLite and PostgreSQL: an operator's table and a table of people created with
    ``"chat": false`` have none (the table says so, its chat reads as off, a message is
    403); the default is on; a body that is not a boolean names the field."""
    service = make_service(backend)
    c = service.client()
    ids = {}
    for seat in "NESW":
        ident = Identity.generate(f"quiet-{seat}")
        c.register(ident, f"quiet-{seat}")
        ids[seat] = ident
    seats = {s: i.id for s, i in ids.items()}
    quiet = c.call("POST", "/v1/tables", {"seats": seats, "chat": False}, c.admin())
    assert quiet["chat"] is False
    assert c.call("GET", f"/v1/tables/{quiet['id']}")["chat"] is False
    assert c.call("GET", f"/v1/tables/{quiet['id']}/chat")["enabled"] is False
    exc = error_of(lambda: say(c, service.origin, quiet["id"], ids["N"], "psst"))
    assert exc.status == 403 and "chat is off" in exc.message
    bad = error_of(lambda: c.call("POST", "/v1/tables", {"seats": seats, "chat": "no"}, c.admin()))
    assert bad.status == 400 and bad.details["body"]["details"]["path"] == "chat"
    chatty = c.call("POST", "/v1/tables", {"seats": seats}, c.admin())
    assert chatty["chat"] is True
    say(c, service.origin, chatty["id"], ids["N"], "hello")
    # a table of people: the creator's choice is kept until the four are seated
    body = {"name": "Silent", "seat": "N", "chat": False}
    made = c.call(
        "POST", "/v1/people-tables", body, signed_write(ids["N"], "/v1/people-tables", body)
    )
    assert made["chat"] is False
    path = f"/v1/people-tables/{made['id']}/seats"
    for seat in "ESW":
        join = {"seat": seat, "invitation": made["invitation"]}
        c.call("POST", path, join, signed_write(ids[seat], path, join))
    assert c.call("GET", f"/v1/tables/{made['id']}")["chat"] is False
    exc = error_of(lambda: say(c, service.origin, made["id"], ids["E"], "psst"))
    assert exc.status == 403 and "chat is off" in exc.message
