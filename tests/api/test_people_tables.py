"""Tables of people: created by a player's signed write, joined by the lobby or an
invitation link, given to house bots, opened only when four are seated, expired when
never filled; "my tables" by a signed read; private tables never listed to strangers."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from typing import Any

from api.client import Client, Identity
from api.signing import sign_read
from tests.api.conftest import Running
from tests.api.helpers import error_of, signed_write


class Clock:
    def __init__(self) -> None:
        self.now = time.time()

    def __call__(self) -> float:
        return self.now


def people(c: Client, *names: str) -> list[Identity]:
    out = []
    for name in names:
        ident = Identity.generate(name)
        c.register(ident, name)
        out.append(ident)
    return out


def write(c: Client, who: Identity, path: str, body: Any) -> Any:
    return c.call("POST", path, body, signed_write(who, path, body))


def read(c: Client, who: Identity, path: str) -> Any:
    return c.call("GET", path, headers={"Authorization": read_auth(who, path)})


def read_auth(who: Identity, path: str) -> str:
    return sign_read(who.signer, who.id, "GET", path, int(time.time()))


def path_of(err: Any) -> Any:
    return err.details["body"]["details"].get("path")


def test_a_private_table_is_joined_by_its_link_and_opens_when_four_sit(
    make_service: Callable[..., Running], backend: str
) -> None:
    service = make_service(backend)
    c = service.client()
    ann, bob, cat, dan = people(c, "ann", "bob", "cat", "dan")
    body = {"name": "Friday", "seat": "S", "public": False}
    err = error_of(lambda: c.call("POST", "/v1/people-tables", body))
    assert err.status == 401 and path_of(err) == "Authorization"  # no admin token either
    made = write(c, ann, "/v1/people-tables", body)
    t, token = made["id"], made["invitation"]
    assert made["status"] == "waiting" and made["seats"] == {
        "N": None,
        "E": None,
        "S": ann.id,
        "W": None,
    }
    assert made["open_seats"] == ["N", "E", "W"] and made["links"]["invite"].endswith(token)
    assert made["names"] == {ann.id: "ann"} and made["ruleset"]["seven_is"] == "single"
    # no hand is opened nor logged while the table waits
    assert error_of(lambda: c.call("GET", f"/v1/tables/{t}")).status == 404
    assert error_of(lambda: c.call("GET", f"/v1/tables/{t}/hands/1")).status == 404
    # a private table: not seen, not joined without its token
    assert path_of(error_of(lambda: c.call("GET", f"/v1/people-tables/{t}"))) == "invitation"
    seen = c.call("GET", f"/v1/people-tables/{t}?invitation={token}")
    assert seen["seats"]["S"] == ann.id
    assert read(c, ann, f"/v1/people-tables/{t}")["invitation"] == token  # its seated player
    seats = f"/v1/people-tables/{t}/seats"
    for bad in ({"seat": "E"}, {"seat": "E", "invitation": "not-the-token"}):
        err = error_of(lambda b=bad: write(c, bob, seats, b))  # type: ignore[misc]
        assert err.status == 403 and path_of(err) == "invitation"
    assert error_of(lambda: c.call("POST", seats, {"seat": "E", "invitation": token})).status == 401
    joined = write(c, bob, seats, {"seat": "E", "invitation": token})
    assert joined["seats"]["E"] == bob.id and joined["status"] == "waiting"
    err = error_of(lambda: write(c, cat, seats, {"seat": "E", "invitation": token}))
    assert (
        err.status == 409 and path_of(err) == "seat" and "taken" in err.details["body"]["message"]
    )
    err = error_of(lambda: write(c, bob, seats, {"seat": "W", "invitation": token}))
    assert err.status == 409 and err.details["body"]["details"]["seat"] == "E"  # one seat each
    write(c, cat, seats, {"seat": "N", "invitation": token})
    assert error_of(lambda: c.call("GET", f"/v1/tables/{t}")).status == 404  # three: waiting
    full = write(c, dan, seats, {"seat": "W", "invitation": token})
    assert full["status"] == "open" and full["open_seats"] == []
    table = c.call("GET", f"/v1/tables/{t}")
    assert table["seats"] == {"N": cat.id, "E": bob.id, "S": ann.id, "W": dan.id}
    assert table["name"] == "Friday" and table["current_hand"] == 1
    assert c.hand(t, 1)["phase"] == "committing"
    assert c.call("GET", f"/v1/tables/{t}/hands/1/events")["events"]  # hand 1 is logged
    err = error_of(lambda: write(c, Identity.generate("x"), seats, {"seat": "N"}))
    assert err.status == 401  # an unknown key
    late = people(c, "eve")[0]
    err = error_of(lambda: write(c, late, seats, {"seat": "N", "invitation": token}))
    assert err.status == 409 and path_of(err) == "table"
    # my tables: by the player's own signed read only
    mine = read(c, bob, f"/v1/players/{bob.id}/tables")["tables"]
    assert [(m["id"], m["seat"], m["status"]) for m in mine] == [(t, "E", "open")]
    assert error_of(lambda: c.call("GET", f"/v1/players/{bob.id}/tables")).status == 401
    other = {"Authorization": read_auth(cat, f"/v1/players/{bob.id}/tables")}
    assert (
        error_of(lambda: c.call("GET", f"/v1/players/{bob.id}/tables", headers=other)).status == 403
    )
    # never listed to a stranger; the operator sees every table
    assert t not in [x["id"] for x in c.call("GET", "/v1/tables")["tables"]]
    assert t in [x["id"] for x in c.call("GET", "/v1/tables", headers=c.admin())["tables"]]
    assert t not in c.raw("GET", "/", headers={"Accept": "text/html"})[2].decode()  # home page


def test_a_public_table_is_found_in_the_lobby_and_bots_fill_it(
    make_service: Callable[..., Running],
) -> None:
    service = make_service(bot_tables=True, bot_pace=0.0, bot_pause=0.0)
    c = service.client()
    ann, bob = people(c, "ann", "bob")
    pub = write(c, ann, "/v1/people-tables", {"name": "Open to all", "public": True, "seat": "N"})
    hidden = write(c, ann, "/v1/people-tables", {"name": "Just us"})
    lobby = c.call("GET", "/v1/people-tables")["tables"]
    assert [x["id"] for x in lobby] == [pub["id"]]  # the private one is not listed
    assert lobby[0]["names"] == {ann.id: "ann"} and "invitation" not in lobby[0]
    assert lobby[0]["open_seats"] == ["E", "S", "W"] and lobby[0]["created_at"]
    assert "invitation" not in c.call("GET", f"/v1/people-tables/{pub['id']}")
    t = pub["id"]
    write(c, bob, f"/v1/people-tables/{t}/seats", {"seat": "S"})  # no token: public
    bots = f"/v1/people-tables/{t}/bots"
    err = error_of(lambda: write(c, bob, bots, {}))
    assert err.status == 403  # the creator's only
    err = error_of(lambda: write(c, ann, bots, {"seats": ["S"]}))
    assert err.status == 409 and path_of(err) == "seats"
    filled = write(c, ann, bots, {})
    assert filled["status"] == "open" and set(filled["names"].values()) >= {"bot E", "bot W"}
    assert c.call("GET", "/v1/people-tables")["tables"] == []  # full: out of the lobby
    assert t in [x["id"] for x in c.call("GET", "/v1/tables")["tables"]]  # public: listed
    assert t in c.raw("GET", "/", headers={"Accept": "text/html"})[2].decode()  # home page
    assert hidden["id"] not in [x["id"] for x in c.call("GET", "/v1/tables")["tables"]]
    # the bots play their seats: they commit to hand 1 without anyone's help
    deadline = time.monotonic() + 20
    while set(c.hand(t, 1)["ceremony"]["commitments"]) < {"E", "W"}:
        assert time.monotonic() < deadline, c.hand(t, 1)["ceremony"]
        time.sleep(0.1)
    mine = read(c, ann, f"/v1/players/{ann.id}/tables")["tables"]
    assert {(m["id"], m["status"]) for m in mine} == {(t, "open"), (hidden["id"], "waiting")}
    waiting = next(m for m in mine if m["id"] == hidden["id"])
    assert waiting["invitation"] == hidden["invitation"] and waiting["seat"] == "S"


def test_bots_wait_for_the_service_to_allow_them(service: Running) -> None:
    c = service.client()
    (ann,) = people(c, "ann")
    t = write(c, ann, "/v1/people-tables", {})["id"]
    err = error_of(lambda: write(c, ann, f"/v1/people-tables/{t}/bots", {}))
    assert err.status == 403 and "off" in err.details["body"]["message"]


def test_bad_bodies_name_their_field(service: Running) -> None:
    c = service.client()
    (ann,) = people(c, "ann")
    cases: list[tuple[Any, int, str]] = [
        ({"name": ""}, 400, "name"),
        ({"seat": "X"}, 400, "seat"),
        ({"public": "yes"}, 400, "public"),
        ({"first_dealer": "Q"}, 400, "first_dealer"),
        ({"ruleset": {"seven_is": "triple"}}, 422, "ruleset.seven_is"),
        ({"ruleset": {"deal_pattern": [4, 4, 4]}}, 422, "ruleset.deal_pattern"),
        ([], 400, ""),
    ]
    for body, status, path in cases:
        err = error_of(lambda b=body: write(c, ann, "/v1/people-tables", b))  # type: ignore[misc]
        assert err.status == status, (body, err.details)
        if path:
            assert path_of(err) == path, (body, err.details)
    err = error_of(lambda: write(c, ann, "/v1/people-tables", {"seats": {}}))
    assert err.status == 400  # not a field of this route
    t = write(c, ann, "/v1/people-tables", {"public": True})["id"]
    err = error_of(lambda: write(c, ann, f"/v1/people-tables/{t}/seats", {}))
    assert err.status == 400 and path_of(err) == "seat"
    assert error_of(lambda: c.call("GET", "/v1/people-tables/t-nothere")).status == 404


def test_creating_tables_is_rate_limited(make_service: Callable[..., Running]) -> None:
    service = make_service(register_burst=2, register_per_hour=1)
    c = service.client()
    (ann,) = people(c, "ann")
    write(c, ann, "/v1/people-tables", {})
    write(c, ann, "/v1/people-tables", {})
    err = error_of(lambda: write(c, ann, "/v1/people-tables", {}))
    assert err.status == 429 and err.details["body"]["details"]["bucket"] == "people-table"


def test_a_table_that_never_fills_expires(
    make_service: Callable[..., Running], backend: str
) -> None:
    clock = Clock()
    service = make_service(backend, clock=clock, people_table_ttl=200)
    c = service.client()
    ann, bob = people(c, "ann", "bob")
    made = write(c, ann, "/v1/people-tables", {"public": True})
    t = made["id"]
    assert [x["id"] for x in c.call("GET", "/v1/people-tables")["tables"]] == [t]
    clock.now += 201  # (still within the signatures' window of 300 s)
    assert c.call("GET", "/v1/people-tables")["tables"] == []
    assert c.call("GET", f"/v1/people-tables/{t}")["status"] == "expired"
    err = error_of(lambda: write(c, bob, f"/v1/people-tables/{t}/seats", {"seat": "N"}))
    assert err.status == 409 and err.details["body"]["details"]["status"] == "expired"
    mine = read(c, ann, f"/v1/players/{ann.id}/tables")["tables"]
    assert [(m["id"], m["status"]) for m in mine] == [(t, "expired")]
    assert error_of(lambda: c.call("GET", f"/v1/tables/{t}")).status == 404  # never opened


def test_private_tournament_tables_are_never_listed_to_strangers(
    make_service: Callable[..., Running],
) -> None:
    from tests.api.test_tournaments import MITCHELL, open_event

    service = make_service()
    client, tid, bots = open_event(service, {**MITCHELL, "boards_per_round": 1, "rounds": 1}, 6)
    bots.reveal_all(client.call("GET", f"/v1/tournaments/{tid}"))
    doc = client.call("GET", f"/v1/tournaments/{tid}")
    tables = {t["id"] for t in doc["rounds_played"][0]["tables"]}
    assert len(tables) == 3
    seen = {t["id"] for t in client.call("GET", "/v1/tables?limit=200")["tables"]}
    assert not seen & tables
    everything = client.call("GET", "/v1/tables?limit=200", headers=client.admin())["tables"]
    assert tables <= {t["id"] for t in everything}


def test_two_people_asking_for_one_seat_at_once_get_one_seat(
    make_service: Callable[..., Running], backend: str
) -> None:
    service = make_service(backend)
    c = service.client()
    ann, *others = people(c, "ann", "p1", "p2", "p3", "p4", "p5", "p6")
    t = write(c, ann, "/v1/people-tables", {"public": True})["id"]
    path = f"/v1/people-tables/{t}/seats"
    answers: list[int] = []
    barrier = threading.Barrier(len(others))

    def sit(who: Identity) -> None:
        body = {"seat": "N"}
        headers = signed_write(who, path, body)
        mine = service.client()
        barrier.wait()
        answers.append(mine.raw("POST", path, body, headers=headers)[0])

    threads = [threading.Thread(target=sit, args=(who,)) for who in others]
    for th in threads:
        th.start()
    for th in threads:
        th.join()
    assert sorted(answers) == [200] + [409] * (len(others) - 1)
    seated = c.call("GET", f"/v1/people-tables/{t}")["seats"]["N"]
    assert seated in {who.id for who in others}


def test_a_full_table_whose_opening_failed_is_opened_by_its_next_reader(
    service: Running,
) -> None:
    c = service.client()
    (ann,) = people(c, "ann")
    made = write(c, ann, "/v1/people-tables", {"public": True, "seat": "N"})
    t = made["id"]
    # four seated, the opening lost (as when the log was down at the fourth seat)
    db = service.app.extensions["fairplay"].db
    fill = people(c, "e", "s", "w")
    db.connection().execute(
        "UPDATE api_seatings SET seat_e = ?, seat_s = ?, seat_w = ? WHERE table_id = ?",
        (fill[0].id, fill[1].id, fill[2].id, t),
    )
    assert error_of(lambda: c.call("GET", f"/v1/tables/{t}")).status == 404
    assert c.call("GET", f"/v1/people-tables/{t}")["status"] == "open"
    assert c.call("GET", f"/v1/tables/{t}")["seats"]["N"] == ann.id
    assert c.hand(t, 1)["phase"] == "committing"


def test_a_tables_heading_reads_table_and_its_name_never_table_table(service: Running) -> None:
    """The API's default name is "table": the pages' heading then says "Table" and the id,
    not "Table table"; a table with a name of its own shows it (the waiting room and the
    table page alike, and table.js / waiting.js keep it so when they redraw)."""
    c = service.client()
    ann = people(c, "ann")[0]
    plain = write(c, ann, "/v1/people-tables", {"public": True, "seat": "N"})
    named = write(c, ann, "/v1/people-tables", {"name": "Friday four", "public": True})
    heading = '<h2>Table <span id="table-name">{}</span>'
    for t, shown in ((plain, ""), (named, "Friday four")):
        status, _, page = c.raw("GET", f"/play/{t['id']}", headers={"Accept": "text/html"})
        assert status == 200 and heading.format(shown) in page.decode(), page.decode()[:600]
    # an administrator's table without a name: its page (/tables/) and its players' page
    seats = {s: i.id for s, i in zip("NESW", people(c, "n1", "e1", "s1", "w1"), strict=True)}
    made = c.create_table(seats)
    for path in (f"/tables/{made['id']}", f"/play/{made['id']}"):
        status, _, page = c.raw("GET", path, headers={"Accept": "text/html"})
        assert status == 200 and heading.format("") in page.decode(), path
