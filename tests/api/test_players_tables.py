"""Players (admin-created or self-registered Ed25519 keys) and tables."""

from __future__ import annotations

from typing import Any

from api.client import Client, Identity
from tests.api.conftest import Running
from tests.api.helpers import error_of, open_table


def test_admin_creates_players_and_others_cannot(service: Running) -> None:
    ident = Identity.generate("alice")
    anon = service.client(admin=False)
    assert error_of(lambda: anon.register(ident, "alice")).status == 401
    wrong = Client(service.url, admin_token="not-the-token")
    assert error_of(lambda: wrong.register(ident, "alice")).status == 403
    created = service.client().register(ident, "alice")
    assert created["id"] == ident.id and created["public_key"] == ident.public_key
    assert service.client().call("GET", f"/v1/players/{ident.id}")["name"] == "alice"


def test_self_registration_when_configured(make_service: Any) -> None:
    svc = make_service(self_registration=True)
    ident = Identity.generate("bob")
    assert svc.client(admin=False).register(ident, "bob")["id"] == ident.id


def test_same_key_twice_is_409_and_bad_key_names_the_field(service: Running) -> None:
    c = service.client()
    ident = Identity.generate("carol")
    c.register(ident, "carol")
    assert error_of(lambda: c.register(ident, "carol again")).status == 409
    err = error_of(
        lambda: c.call(
            "POST", "/v1/players", {"name": "x", "public_key": "abc+def+AAAA"}, c.admin()
        )
    )
    assert err.status == 400 and err.details["body"]["details"]["path"] == "public_key"


def test_players_are_paginated(service: Running) -> None:
    c = service.client()
    ids = sorted(c.register(Identity.generate(f"p{i}"), f"p{i}")["id"] for i in range(5))
    first = c.call("GET", "/v1/players?limit=3")
    second = c.call("GET", f"/v1/players?limit=3&after={first['next_after']}")
    assert [p["id"] for p in first["players"] + second["players"]] == ids
    assert second["next_after"] is None


def test_table_needs_admin_four_known_players_and_a_valid_ruleset(service: Running) -> None:
    c = service.client()
    players = {s: Identity.generate(s) for s in "NESW"}
    for s, i in players.items():
        c.register(i, s)
    seats = {s: i.id for s, i in players.items()}
    assert error_of(lambda: service.client(admin=False).create_table(seats)).status == 401
    err = error_of(lambda: c.create_table(dict(seats, W="p-unknown")))
    assert err.status == 400 and err.details["body"]["details"]["path"] == "seats.W"
    err = error_of(lambda: c.create_table(seats, ruleset={"deal_pattern": [4, 4, 4]}))
    assert err.status == 422 and "deal_pattern" in err.details["body"]["details"]["path"]
    table = c.create_table(seats, ruleset={"deal_pattern": [6, 7]})
    assert table["ruleset"]["deal_pattern"] == [6, 7] and table["current_hand"] == 1
    hand = c.hand(table["id"], 1)
    assert hand["phase"] == "committing" and hand["dealer"] == "N" and hand["next_seq"] == 1
    assert hand["waiting_for"] == ["N", "E", "S", "W"]


def test_tables_list(service: Running) -> None:
    c = service.client()
    t = open_table(c, service.origin)
    listed = c.call("GET", "/v1/tables")["tables"]
    assert [x["id"] for x in listed] == [t.id]
