"""Entering an event as a person does in the browser (docs/tournaments.md, "Entering in
the browser"): a partner invited by a code or by their player name, the acceptance
taken once, both registrations naming each other, an entrant's own withdrawal before
the start, and a player's own results read by signed requests during the event (another
pair's refused). One service for the module, on a real socket."""

from __future__ import annotations

import json
import random
import secrets
import time
from collections.abc import Iterator
from typing import Any

import pytest

from api.client import Client, Identity
from api.signing import sign_read
from api.tournament_bot import TournamentBots, leave_event, registration
from audit.log.events import sign_event

from .conftest import Running, start_service, stop_service
from .helpers import signed_write


@pytest.fixture(scope="module")
def service(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Running]:
    running = start_service(tmp_path_factory.mktemp("entering"))
    yield running
    stop_service(running)


def post(client: Client, who: Identity, path: str, body: Any) -> tuple[int, Any]:
    status, _, payload = client.raw("POST", path, body, signed_write(who, path, body))
    return status, json.loads(payload)


def get(client: Client, who: Identity | None, path: str) -> tuple[int, Any]:
    headers = {}
    if who is not None:
        headers["Authorization"] = sign_read(who.signer, who.id, "GET", path, int(time.time()))
    status, _, payload = client.raw("GET", path, headers=headers)
    return status, json.loads(payload)


def person(client: Client, name: str) -> Identity:
    ident = Identity.generate(name)
    client.register(ident, name)
    return ident


def new_event(client: Client, tables: int = 1, open_: bool = True) -> str:
    body = {"name": "entering", "format": "pairs-duplicate", "tables": tables}
    tid = str(
        client.call("POST", "/v1/tournaments", body | {"boards_per_round": 1}, client.admin())["id"]
    )
    if open_:
        client.call("POST", f"/v1/tournaments/{tid}/registration", {"open": True}, client.admin())
    return tid


def enter(client: Client, origin: str, tid: str, who: Identity, partner: str) -> dict[str, Any]:
    event = registration(origin, tid, who, partner, secrets.token_bytes(32))
    client.call("POST", f"/v1/tournaments/{tid}/entrants", event)
    return event


def test_a_partner_invited_by_code_accepts_once_and_both_enter(service: Running) -> None:
    client = service.client()
    tid = new_event(client)
    ann, bob, cy = (person(client, n) for n in ("Ann", "Bob", "Cy"))
    path = f"/v1/tournaments/{tid}/invitations"
    assert client.raw("POST", path, {})[0] == 401  # unsigned
    status, inv = post(client, ann, path, {})
    assert status == 201 and inv["inviter"] == ann.id and inv["accepted_by"] is None
    assert inv["link"] == f"/tournaments/{tid}?invite={inv['code']}"
    # whoever holds the code reads who invites (typed in lower case, in groups)
    typed = inv["code"].lower()[:5] + "-" + inv["code"].lower()[5:]
    status, seen = get(client, None, f"{path}/{typed}")
    assert status == 200 and seen["inviter_name"] == "Ann" and seen["code"] == inv["code"]
    status, err = get(client, None, f"{path}/NOT-A-CODE!")
    assert status == 400 and err["details"]["path"] == "code"
    # the inviter cannot accept their own; the partner accepts once; nobody else after
    status, err = post(client, ann, f"{path}/{inv['code']}/accept", {})
    assert status == 400 and err["details"]["path"] == "code"
    status, took = post(client, bob, f"{path}/{inv['code']}/accept", {})
    assert status == 200 and took["accepted_by"] == bob.id and took["accepted_by_name"] == "Bob"
    assert post(client, bob, f"{path}/{inv['code']}/accept", {})[0] == 200  # again: the same
    status, err = post(client, cy, f"{path}/{inv['code']}/accept", {})
    assert status == 409 and err["details"]["path"] == "code"
    # the inviter's signed read shows the acceptance; another's read shows nothing of it
    assert get(client, None, path)[0] == 401
    assert [i["accepted_by"] for i in get(client, ann, path)[1]["invitations"]] == [bob.id]
    assert get(client, cy, path)[1]["invitations"] == []
    # a second invitation once accepted: 409 naming the partner
    status, err = post(client, ann, path, {})
    assert status == 409 and err["details"]["partner"] == bob.id
    # both enter naming each other: one pair
    origin = service.origin
    enter(client, origin, tid, bob, ann.id)
    enter(client, origin, tid, ann, bob.id)
    status, err = post(client, ann, path, {})  # entered: no more invitations
    assert status == 409
    doc = client.call("GET", f"/v1/tournaments/{tid}")
    assert {(e["player"], e["partner"]) for e in doc["entrants"]} == {
        (ann.id, bob.id),
        (bob.id, ann.id),
    }


def test_an_invitation_by_player_name_is_for_that_player_only(service: Running) -> None:
    client = service.client()
    tid = new_event(client)
    dee, eve, fay = (person(client, f"{n}-{tid}") for n in ("Dee", "Eve", "Fay"))
    path = f"/v1/tournaments/{tid}/invitations"
    status, err = post(client, dee, path, {"partner_name": "nobody of that name"})
    assert status == 400 and err["details"]["path"] == "partner_name"
    status, err = post(client, dee, path, {"partner_name": f"Dee-{tid}"})
    assert status == 400 and err["details"]["path"] == "partner_name"  # oneself
    status, inv = post(client, dee, path, {"partner_name": f"Eve-{tid}"})
    assert status == 201 and inv["invitee"] == eve.id
    # the invitee finds it by a signed read (no code needed); another may not accept it
    assert [i["code"] for i in get(client, eve, path)[1]["invitations"]] == [inv["code"]]
    status, err = post(client, fay, f"{path}/{inv['code']}/accept", {})
    assert status == 403 and err["details"]["path"] == "code"
    assert post(client, eve, f"{path}/{inv['code']}/accept", {})[0] == 200
    # a new invitation drops an unaccepted one; an event not open takes none
    closed = new_event(client, open_=False)
    status, err = post(client, dee, f"/v1/tournaments/{closed}/invitations", {})
    assert status == 409 and err["code"] == "WRONG_PHASE"


def test_an_entrant_withdraws_before_the_start_by_their_own_signature(service: Running) -> None:
    """The withdrawal is the entrant's own signed tournament_leave, logged as signed in
    their chain after the registration: one signed by another player, or for another
    entrant, is refused; the event's state folds it as the director's remove."""
    client = service.client()
    tid = new_event(client)
    gus, hal = person(client, "Gus"), person(client, "Hal")
    origin = service.origin
    registered = enter(client, origin, tid, gus, hal.id)
    path = f"/v1/tournaments/{tid}/entrants/{gus.id}/withdraw"
    mine = leave_event(origin, tid, gus, registered)
    # Hal signs a withdrawal in Gus's name: refused (not Gus's key, nor Hal's chain)
    forged = sign_event({k: v for k, v in mine.items() if k != "signature"}, hal.signer)
    status, _, raw = client.raw("POST", path, forged)
    assert status == 401, raw
    hals = leave_event(origin, tid, hal, registered)  # Hal's own event, on Gus's path
    status, _, raw = client.raw("POST", path, hals)
    assert status == 403 and json.loads(raw)["details"]["path"] == "event.actor", raw
    status, _, raw = client.raw("POST", f"/v1/tournaments/{tid}/entrants/{hal.id}/withdraw", hals)
    assert status == 400 and b"has not entered" in raw, raw  # no registration to follow
    status, _, raw = client.raw("POST", path, mine)
    assert status == 200, raw
    doc = json.loads(raw)
    assert doc["removed"] == [gus.id]
    assert [e["removed"] for e in doc["entrants"]] == [True]
    assert client.raw("POST", path, mine)[0] == 200  # a retry changes nothing
    chain = client.call("GET", f"/v1/tournaments/{tid}/events?entrant={gus.id}")["events"]
    assert [e["event"]["type"] for e in chain] == ["tournament_register", "tournament_leave"]
    assert chain[1]["event"] == mine and chain[1]["event"]["key"] == gus.signer.verifier_key()
    own = client.call("GET", f"/v1/tournaments/{tid}/events")["events"]
    assert "tournament_remove" not in [e["event"]["type"] for e in own]
    # may not enter again, nor invite
    assert (
        client.raw(
            "POST",
            f"/v1/tournaments/{tid}/invitations",
            {},
            signed_write(gus, f"/v1/tournaments/{tid}/invitations", {}),
        )[0]
        == 409
    )
    status, _, raw = client.raw("POST", f"/v1/tournaments/{tid}/entrants", registered)
    assert status == 409, raw


def test_a_player_reads_their_own_results_during_the_event_and_no_one_elses(
    service: Running,
) -> None:
    client = service.client()
    spec = {"name": "own", "format": "pairs-duplicate", "tables": 2, "boards_per_round": 1}
    bots = TournamentBots.open(
        client,
        spec | {"rounds": 2},
        4,
        random.Random(3),
        {"source": "t", "round": 1, "randomness": "ab"},
    )
    tid = bots.tid
    bots.reveal_all(client.call("GET", f"/v1/tournaments/{tid}"))
    doc = client.call("GET", f"/v1/tournaments/{tid}")
    t1, t2 = doc["rounds_played"][0]["tables"]
    for _ in range(200):  # table 1 plays its board; table 2 waits
        if not bots._step(bots.origin, t1):
            break
    me = bots.entrants[t1["seats"]["N"]].ident
    other = bots.entrants[t2["seats"]["N"]].ident
    hand = get(client, me, f"/v1/tables/{t1['id']}/hands/1")[1]
    assert hand["phase"] == "over" and hand["board"] == t1["boards"][0]
    assert get(client, me, f"/v1/tables/{t1['id']}")[0] == 200  # a signed read of one's table
    status, card = get(client, me, f"/v1/tournaments/{tid}/pairs/{t1['ns']}")
    assert status == 200 and [r["board"] for r in card["results"]] == t1["boards"]
    assert get(client, other, f"/v1/tournaments/{tid}/pairs/{t1['ns']}")[0] == 403
    assert get(client, None, f"/v1/tournaments/{tid}/pairs/{t1['ns']}")[0] == 403
    status, mine = get(client, other, f"/v1/tournaments/{tid}/pairs/{t2['ns']}")
    assert status == 200 and mine["results"] == []  # not played yet: nothing to show
    assert get(client, me, f"/v1/tournaments/{tid}/boards/{t2['boards'][0]}")[0] == 403


def test_the_inviter_takes_back_an_invitation_nobody_accepted(service: Running) -> None:
    """Only the inviter, only while nobody has accepted it; its code names no one after."""
    client = service.client()
    tid = new_event(client)
    ann, bob, cy = (person(client, n) for n in ("AnnT", "BobT", "CyT"))
    path = f"/v1/tournaments/{tid}/invitations"
    inv = post(client, ann, path, {"partner_name": "BobT"})[1]
    cancel = f"{path}/{inv['code']}/cancel"
    assert client.raw("POST", cancel, {})[0] == 401  # unsigned
    status, err = post(client, bob, cancel, {})  # the invitee: not his to take back
    assert status == 403 and err["details"]["path"] == "code"
    status, gone = post(client, ann, cancel, {})
    assert status == 200 and gone["code"] == inv["code"] and gone["invitee"] == bob.id
    assert get(client, None, f"{path}/{inv['code']}")[0] == 404
    assert get(client, bob, path)[1]["invitations"] == []  # no longer on Bob's page
    status, err = post(client, bob, f"{path}/{inv['code']}/accept", {})
    assert status == 404 and err["details"]["path"] == "code"
    assert post(client, ann, cancel, {})[0] == 404  # taken back already
    # once accepted the pair is fixed: 409 naming the partner
    again = post(client, ann, path, {})[1]
    assert post(client, cy, f"{path}/{again['code']}/accept", {})[0] == 200
    status, err = post(client, ann, f"{path}/{again['code']}/cancel", {})
    assert status == 409 and err["details"]["partner"] == cy.id
    status, err = post(client, ann, f"{path}/NOT-A-CODE!/cancel", {})
    assert status == 400 and err["details"]["path"] == "code"
