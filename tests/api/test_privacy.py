"""Privacy: until the hand ends a player reads only their own cards; 403 for everyone else.

Endpoint by endpoint: the one endpoint that returns unplayed cards answers only the
player seated there, on a request signed with that player's key; the record is refused;
every public endpoint and page, and the log, hold no unplayed card.
"""

from __future__ import annotations

import re
import time
from typing import Any

import pytest

from api.client import Client, Identity
from api.signing import sign_read
from tests.api.conftest import Running
from tests.api.helpers import SEATS, Table, open_table

CARD = re.compile(r"^(?:10|[2-9TJQKA])[SHDC]$")


def cards_in(doc: Any) -> set[str]:
    """Every string in a JSON value that is a card."""
    found: set[str] = set()
    if isinstance(doc, str):
        if CARD.match(doc):
            found.add(doc)
    elif isinstance(doc, dict):
        for v in doc.values():
            found |= cards_in(v)
    elif isinstance(doc, list):
        for v in doc:
            found |= cards_in(v)
    return found


@pytest.fixture
def dealt(service: Running) -> Table:
    t = open_table(service.client(), service.origin)
    t.commit_all()
    t.reveal_all()
    t.act("N", "call", {"call": "S"})
    seat = t.hand()["waiting_for"][0]
    t.act(seat, "play", {"card": t.cards(seat)["legal_plays"][0]})
    return t


def status(c: Client, path: str, authorization: str | None = None) -> int:
    headers = {"Authorization": authorization} if authorization else {}
    return c.raw("GET", path, headers=headers)[0]


def hidden_cards(t: Table) -> set[str]:
    return {c for s in SEATS for c in t.cards(s)["held"]}


def test_own_cards_only_on_a_signed_request_by_that_player(dealt: Table, service: Running) -> None:
    t = dealt
    c = t.client
    outsider = Identity.generate("outsider")
    c.register(outsider, "outsider")
    for seat in SEATS:
        own = t.cards(seat)
        assert len(own["dealt"]) == 13 and own["seat"] == seat
        path = f"/v1/tables/{t.id}/hands/1/seats/{seat}/cards"
        now = int(time.time())
        for other in SEATS:
            if other != seat:
                ident = t.players[other]
                assert status(c, path, sign_read(ident.signer, ident.id, "GET", path, now)) == 403
        assert status(c, path, sign_read(outsider.signer, outsider.id, "GET", path, now)) == 403
        assert status(c, path) == 403  # anonymous
        assert status(c, path, c.admin()["Authorization"]) == 403  # the admin too
        # The seated player's id with another key's signature: refused as forged.
        me = t.players[seat]
        assert status(c, path, sign_read(outsider.signer, me.id, "GET", path, now)) == 401
        # A signature for another path, or an old one, does not open this one.
        other_path = f"/v1/tables/{t.id}/hands/1/seats/{'E' if seat != 'E' else 'N'}/cards"
        assert status(c, path, sign_read(me.signer, me.id, "GET", other_path, now)) == 401
        assert status(c, path, sign_read(me.signer, me.id, "GET", path, now - 3600)) == 401
        assert status(c, path, sign_read(me.signer, me.id, "GET", path, now)) == 200


def test_record_and_report_refused_until_the_end(dealt: Table) -> None:
    t = dealt
    c = t.client
    path = f"/v1/tables/{t.id}/hands/1/record"
    n = t.players["N"]
    assert status(c, path) == 403
    assert status(c, path, c.admin()["Authorization"]) == 403
    assert status(c, path, sign_read(n.signer, n.id, "GET", path, int(time.time()))) == 403
    assert status(c, f"/v1/tables/{t.id}/hands/1/report") == 404
    assert status(c, f"/v1/tables/{t.id}/hands/1/proof") == 404


def test_public_endpoints_and_log_hold_no_unplayed_card(dealt: Table, service: Running) -> None:
    t = dealt
    c: Client = t.client
    hidden = hidden_cards(t)
    assert len(hidden) == 51
    # The cayenne card is turned from the other (still) pack and is public; its text may
    # name a card that someone holds in the dealt pack.
    hidden.discard(t.hand()["play"]["cayenne"])
    service.app.extensions["fairplay"].hand_log.sign_checkpoint()  # as the writer's schedule
    json_paths = [
        f"/v1/tables/{t.id}/hands/1",
        f"/v1/tables/{t.id}/hands/1/events",
        f"/v1/tables/{t.id}/hands",
        f"/v1/tables/{t.id}",
        f"/v1/tables/{t.id}/record",
        "/v1/tables",
        "/v1/audits",
        f"/v1/log/hands/{t.id}/1",
        "/v1/log/entries?start=0&end=1000",
    ]
    for path in json_paths:
        leaked = cards_in(c.call("GET", path)) & hidden
        assert not leaked, (path, leaked)
    for page in ("/", f"/tables/{t.id}", f"/tables/{t.id}/hands/1"):
        status, _, body = c.raw("GET", page, headers={"Accept": "text/html"})
        assert status == 200
        tokens = set(
            re.findall(r"(?<![0-9A-Za-z])(?:[2-9TJQKA][SHDC])(?![0-9A-Za-z])", body.decode())
        )
        assert not tokens & hidden, (page, tokens & hidden)


def test_after_the_end_everything_is_public(service: Running) -> None:
    import random

    from api.bot import TableBots

    c = service.client()
    bots = TableBots.open(c, random.Random(7))
    bots.play_hand(1)
    anon = service.client(admin=False)
    for seat in SEATS:
        assert (
            len(anon.call("GET", f"/v1/tables/{bots.table}/hands/1/seats/{seat}/cards")["dealt"])
            == 13
        )
    record = anon.call("GET", f"/v1/tables/{bots.table}/hands/1/record")
    assert record["format"] == "cayenne-record/1" and record["hands"][0]["shuffle"]
