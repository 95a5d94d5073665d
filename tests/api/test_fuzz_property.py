"""Every route, hostile parameters and bodies: never a 5xx, always the JSON error shape, and
a refused request leaves the database and the log exactly as they were.

A property over the real application on a real database (SQLite and PostgreSQL) that
holds players, a finished hand, an open hand and its report, so that generated requests
meet real ids as well as random ones. The requests are built from the application's own
URL map (so a new route is fuzzed without being listed here), with values that have
caused trouble: NUL, lone surrogates, bidi and zero-width characters, invalid UTF-8,
JSON nested far too deep, numbers far too large, dates at the ends of the calendar, and
bodies that are valid documents (a player, a table, a record, a signed event) with one
value replaced. Before every request every ``api_*`` and ``log_*`` row is read; after a
refused one (4xx) they must be the same.

Examples are bounded so that the suite stays quick (``FAIRPLAY_FUZZ_EXAMPLES``, default
200 per database); ``pytest -m long`` runs the long search (see docs/api.md).
"""

from __future__ import annotations

import json
import os
import random
import re
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any
from urllib.parse import quote

import pytest
from flask import Flask
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from api import create_app
from api.bot import TableBots
from api.client import Client, Identity
from audit.log.events import make_event, sign_event
from audit.log.keys import Verifier
from tests.api.conftest import ADMIN, _drop_schema, _pg_schema_url
from tests.api.serving import TestServer
from tests.api.snapshot import changes, snapshot, table_names

# one worker builds each backend's world once for every test of the module (make test's xdist)
pytestmark = pytest.mark.xdist_group("fuzz_property")

EXAMPLES = int(os.environ.get("FAIRPLAY_FUZZ_EXAMPLES", "200"))
LONG_EXAMPLES = int(os.environ.get("FAIRPLAY_FUZZ_LONG_EXAMPLES", "3000"))


class Clock:
    """The service's clock: the real time while the world is set up, then standing still,
    so that no read finds the latest checkpoint older than its 10 s interval (issue 10,
    item 5, another change): the property is about the request, not the time."""

    def __init__(self) -> None:
        self.frozen: float | None = None

    def __call__(self) -> float:
        return time.time() if self.frozen is None else self.frozen


# ------------------------------------------------------------------------ the service


@dataclass
class World:
    app: Flask
    origin: str
    table: str
    players: dict[str, Identity]
    report: str
    now: float
    names: list[str]
    """Table names of the snapshot."""
    tournament: str = ""
    """An event with registration open (docs/tournaments.md)."""


@pytest.fixture(scope="module", params=["sqlite", "postgresql"])
def world(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[World]:
    clock = Clock()
    config: dict[str, Any] = {
        "data_dir": str(tmp_path_factory.mktemp("fuzzprop")),
        "admin_token": ADMIN,
        "testing": True,
        "clock": clock,
    }
    schema = None
    if request.param == "postgresql":
        pg_url: str = request.getfixturevalue("pg_url")
        config["database_url"], schema = _pg_schema_url(pg_url)
    app = create_app(config)
    server = TestServer("127.0.0.1", 0, app)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    client = Client(f"http://127.0.0.1:{server.server_port}", admin_token=ADMIN)
    bots = TableBots.open(client, random.Random(11))
    finished = bots.play_hand(1)
    event = client.call(
        "POST",
        "/v1/tournaments",
        {"format": "rubber-round-robin", "pairs": 2, "hands_per_match": 1},
        client.admin(),
    )["id"]
    client.call("POST", f"/v1/tournaments/{event}/registration", {"open": True}, client.admin())
    server.shutdown()
    db = app.extensions["fairplay"].db
    clock.frozen = time.time()
    yield World(
        app,
        bots.origin,
        bots.table,
        bots.players,
        finished["report_id"],
        clock.frozen,
        table_names(db),
        event,
    )
    app.extensions["fairplay"].close()
    if schema is not None:
        _drop_schema(request.getfixturevalue("pg_url"), schema)


# ------------------------------------------------------------------------- strategies

NASTY = [
    "\x00",
    "\ud800",
    "\udfff",
    "\u202e",
    "\u2066",
    "\u200b",
    "\u200d",
    "\ufeff",
    "\x7f",
    "\x85",
    "\x9b",
    "\u2028",
    "\n",
    "'",
    '"',
    "\\",
    "%",
    "/",
    "..",
    "é",
    "渡",
    "🂡",
]
nasty_text = st.one_of(
    st.text(max_size=20),
    st.lists(st.sampled_from(NASTY) | st.text(max_size=3), max_size=6).map("".join),
)
DATES = [
    "0001-01-01",
    "9999-12-31",
    "0001-01-01T00:00:00+01:00",
    "9999-12-31T23:59:59-01:00",
    "0001-01-01T00:00:00+00:01",
    "9999-12-31T23:59:59.999999Z",
    "2026-02-30",
    "2026-01-01T25:00",
    "-1",
    "",
]
huge_numbers = st.sampled_from(
    [
        "0",
        "-1",
        "1",
        str(2**31),
        str(2**63),
        str(2**64 + 1),
        "1e400",
        "NaN",
        "-0",
        "1" * 5000,
        "0x10",
        " 1",
    ]
)


def url_text(data: st.DataObject, known: list[str]) -> str:
    """A percent-encoded URL component: a known id, hostile text, or raw bytes."""
    kind = data.draw(st.sampled_from(["known", "text", "bytes", "number", "date"]))
    if kind == "known":
        return quote(data.draw(st.sampled_from(known)), safe="")
    if kind == "bytes":
        return quote(data.draw(st.binary(max_size=12)), safe="")
    if kind == "number":
        return quote(data.draw(huge_numbers), safe="")
    if kind == "date":
        return quote(data.draw(st.sampled_from(DATES)), safe="")
    return quote(data.draw(nasty_text).encode("utf-8", "surrogatepass"), safe="")


json_values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**200), max_value=2**200)
    | st.floats(allow_nan=True, allow_infinity=True)
    | nasty_text,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(nasty_text, inner, max_size=4),
    max_leaves=12,
)


def replace_somewhere(data: st.DataObject, doc: Any) -> Any:
    """``doc`` with one value (at a random depth) replaced by a hostile one."""
    if not isinstance(doc, (dict, list)) or not doc or data.draw(st.integers(0, 3)) == 0:
        return data.draw(json_values)
    if isinstance(doc, dict):
        key = data.draw(st.sampled_from(sorted(doc)))
        return {**doc, key: replace_somewhere(data, doc[key])}
    i = data.draw(st.integers(0, len(doc) - 1))
    return [*doc[:i], replace_somewhere(data, doc[i]), *doc[i + 1 :]]


def valid_body(data: st.DataObject, w: World, client: Any, route: str) -> Any:
    """A document the route could accept, before mutation."""
    ident = Identity.generate("fz")
    seats = {s: p.id for s, p in w.players.items()}
    if route == "/v1/players":
        return {
            "name": "Fuzz",
            "public_key": data.draw(
                st.sampled_from(
                    [
                        ident.public_key,
                        w.players["N"].public_key,  # registered: 409
                        Verifier("other", w.players["E"].signer.public_key).text(),  # the same
                    ]
                )
            ),
        }
    if route == "/v1/tables":
        return {"name": "fuzz", "seats": seats, "ruleset": {}, "first_dealer": "E"}
    if route == "/v1/audits":
        return client.get(f"/v1/tables/{w.table}/hands/1/record").get_json()
    if route == "/v1/tournaments/scores":  # one hand of a service table: not an event's record
        return {"records": [client.get(f"/v1/tables/{w.table}/hands/1/record").get_json()]}
    if route.endswith("/void"):
        return {"reason": "fuzz"}
    if route == "/v1/bot-tables":
        return {"name": "fuzz against the bots"}
    if route == "/v1/people-tables":
        return {"name": "fuzz people", "seat": "E", "public": True, "ruleset": {}}
    if route.endswith("/people-tables/<table_id>/seats"):
        return {"seat": data.draw(st.sampled_from(["N", "E", "S", "W"])), "invitation": "x"}
    if route.endswith("/people-tables/<table_id>/bots"):
        return {"seats": ["W"]}
    if route == "/v1/log/cosignatures":  # the log's note (no witness is configured: 403)
        return client.get("/v1/log/checkpoint").get_data(as_text=True)
    if route == "/v1/tournaments":
        return {"format": "pairs-duplicate", "tables": 2, "boards_per_round": 1, "name": "fz"}
    if route == "/v1/directors":  # a director's key granted (a new one, or one granted)
        return {
            "public_key": data.draw(st.sampled_from([ident.public_key, w.players["W"].public_key]))
        }
    if route.endswith(("/entrants", "/reveals")):  # a signed registration or reveal
        who = data.draw(st.sampled_from(sorted(w.players)))
        reveal = route.endswith("/reveals")
        event = make_event(
            origin=w.origin,
            table=w.tournament,
            hand=f"entrant-{w.players[who].id}",
            seq=int(reveal),
            prev="0" * 64 if reveal else None,
            actor=w.players[who].id,
            type="tournament_reveal" if reveal else "tournament_register",
            body={"seed": "11" * 32}
            if reveal
            else {"commitment": "22" * 32, "partner": w.players["S"].id},
        )
        return sign_event(event, w.players[who].signer)
    if route.endswith("/invitations"):  # a partner by name, or an open code
        return data.draw(st.sampled_from([{}, {"partner_name": "N"}]))
    if route.endswith("/withdraw"):  # an entrant's own signed withdrawal
        who = data.draw(st.sampled_from(sorted(w.players)))
        leave = make_event(
            origin=w.origin,
            table=w.tournament,
            hand=f"entrant-{w.players[who].id}",
            seq=1,
            prev="0" * 64,
            actor=w.players[who].id,
            type="tournament_leave",
            body={"entrant": w.players[who].id},
        )
        return sign_event(leave, w.players[who].signer)
    if route.endswith("/accept"):
        return {}
    if "/tournaments/" in route:
        return {
            "open": data.draw(st.booleans()),
            "source": "fz",
            "round": 1,
            "randomness": "ab",
            "reason": "fuzz",
            "pair": 1,
            "board": 1,
            "table": 1,
            "ns": "average",
            "ew": "average",
        }
    if route.endswith("/chat"):  # a message to the table, signed by a seated player
        head = client.get(f"/v1/tables/{w.table}/chat").get_json()
        seat = data.draw(st.sampled_from(sorted(w.players)))
        event = make_event(
            origin=w.origin,
            table=w.table,
            hand="chat",
            seq=int(head["next_seq"]),
            prev=head["last_hash"],
            actor=w.players[seat].id,
            type="chat",
            body={"text": data.draw(st.text(min_size=1, max_size=300))},
        )
        return sign_event(event, w.players[seat].signer)
    if route.endswith("/events"):  # the next event of the open hand (hand 2), signed
        hand = client.get(f"/v1/tables/{w.table}/hands/2").get_json()
        seat = data.draw(st.sampled_from(sorted(w.players)))
        event = make_event(
            origin=w.origin,
            table=w.table,
            hand=2,
            seq=int(hand["next_seq"]),
            prev=hand["last_hash"],
            actor=w.players[seat].id,
            type=data.draw(st.sampled_from(["commit", "reveal", "call", "play"])),
            body={"commitment": data.draw(st.binary(min_size=32, max_size=32)).hex()},
        )
        return sign_event(event, w.players[seat].signer)
    return data.draw(json_values)


def body_bytes(data: st.DataObject, w: World, client: Any, route: str) -> bytes:
    kind = data.draw(
        st.sampled_from(["valid", "mutated", "mutated", "deep", "huge", "raw", "json"])
    )
    if kind == "deep":
        n = data.draw(st.sampled_from([65, 200, 1_100, 5_000, 40_000]))
        opener, closer = data.draw(
            st.sampled_from([(b"[", b"]"), (b'{"a":', b"}"), (b'[{"a":', b"}]")])
        )
        return opener * n + b"1" * (opener != b"[") + closer * n
    if kind == "huge":
        key = data.draw(st.sampled_from(["name", "seq", "hand", "reason", "limit"]))
        return b'{"%s": %s}' % (key.encode(), data.draw(huge_numbers).encode())
    if kind == "raw":
        return data.draw(st.binary(max_size=64))
    if kind == "json":
        return json.dumps(data.draw(json_values)).encode()
    doc = valid_body(data, w, client, route)
    if kind == "mutated":
        doc = replace_somewhere(data, doc)
    return json.dumps(doc).encode()  # ensure_ascii: lone surrogates travel as \ud800


# --------------------------------------------------------------------------- property

PARAM = re.compile(r"<(?:(\w+):)?(\w+)>")
QUERY_NAMES = [
    "after",
    "code",
    "cursor",
    "end",
    "from",
    "index",
    "limit",
    "player",
    "since",
    "size",
    "start",
    "table",
    "to",
    "until",
    "witnessed",
]


def routes(app: Flask) -> list[tuple[str, str]]:
    out = []
    for rule in app.url_map.iter_rules():
        if rule.endpoint == "static":
            continue
        for method in sorted((rule.methods or set()) - {"HEAD", "OPTIONS"}):
            out.append((method, rule.rule))
    return sorted(out)


def _wants_a_page(path: str, headers: dict[str, str]) -> bool:
    """A browser asking for a page, not the JSON API: its errors are pages too."""
    return not path.startswith(("/v1/", "/static/")) and headers["Accept"] == "text/html"


def check_request(w: World, data: st.DataObject) -> None:
    everything = routes(w.app)
    posts = [r for r in everything if r[0] == "POST"]  # half the requests: bodies matter most
    method, rule = data.draw(st.sampled_from(everything) | st.sampled_from(posts), label="route")
    client = w.app.test_client()
    known = {
        "table_id": [w.table, "t-000000000000"],
        "player_id": [p.id for p in w.players.values()],
        "report_id": [w.report],
        "seat": ["N", "E", "S", "W", "n"],
        "number": ["1", "2", "3", "0"],
        "tid": [w.tournament, "e-000000000000"],
        "action": ["substitute", "adjust", "withdraw", "void_board", "remove", "x"],
        "board": ["1", "2", "0"],
        "pair": ["1", "2", "0"],
    }
    values: dict[str, str] = {}

    def fill(m: re.Match[str]) -> str:
        name = m.group(2)
        values[name] = url_text(data, known.get(name, ["x"]))
        return values[name]

    path = PARAM.sub(fill, rule)
    pairs = data.draw(
        st.lists(st.tuples(st.sampled_from(QUERY_NAMES) | nasty_text, st.just(None)), max_size=4),
        label="query names",
    )
    query = "&".join(
        f"{quote(k.encode('utf-8', 'surrogatepass'), safe='')}={url_text(data, [w.table, w.report, 'N', '5', '2026-01-01'])}"
        for k, _ in pairs
    )
    headers = {"Accept": data.draw(st.sampled_from(["application/json", "text/html", "*/*"]))}
    auth = data.draw(
        st.sampled_from(
            ["admin", "admin", "none", "signed"]
            if method == "POST"
            else ["none", "admin", "signed"]
        ),
        label="auth",
    )
    if auth == "admin":
        headers["Authorization"] = f"Bearer {ADMIN}"
    elif auth == "signed":
        who = data.draw(
            nasty_text.filter(lambda t: all(ord(c) < 256 and c not in "\r\n" for c in t))
        )
        headers["Authorization"] = f"Cayenne-Ed25519 player={who},ts={int(w.now)},sig=AAAA"
    body = None
    if method == "POST":
        body = body_bytes(data, w, client, rule)
        headers["Content-Type"] = "application/json"
    db = w.app.extensions["fairplay"].db
    before = snapshot(db, w.names)
    response = client.open(
        path + ("?" + query if query else ""), method=method, data=body, headers=headers
    )
    status = response.status_code
    assert status < 500, (method, path, query, status, response.get_data()[:300])
    if status >= 400 and _wants_a_page(path, headers):
        # a person's browser asking for a page gets a page (api/errors.py), same status
        assert response.mimetype == "text/html", (path, status)
    elif status >= 400:
        assert response.mimetype == "application/json", (path, status)
        doc = json.loads(response.get_data())
        assert set(doc) == {"code", "message", "details"}, doc
        assert isinstance(doc["code"], str) and doc["code"].isupper(), doc
        assert b"Traceback" not in response.get_data()
        assert changes(before, snapshot(db, w.names)) == {}, (method, path, query, doc)


def _run(w: World, examples: int) -> None:
    @given(data=st.data())
    @settings(
        max_examples=examples,
        deadline=None,
        suppress_health_check=list(HealthCheck),
        database=None,
    )
    def prop(data: st.DataObject) -> None:
        check_request(w, data)

    prop()


def test_no_request_gets_a_5xx_and_a_refused_one_changes_nothing(world: World) -> None:
    _run(world, EXAMPLES)


@pytest.mark.long
def test_the_long_search(world: World) -> None:
    _run(world, LONG_EXAMPLES)


def test_the_routes_are_the_applications(world: World) -> None:
    """The property covers every route the application serves (and the POST bodies)."""
    got = routes(world.app)
    assert len(got) >= 30
    assert {r for m, r in got if m == "POST"} == {
        "/v1/players",
        "/v1/tables",
        "/v1/audits",
        "/v1/tournaments/scores",
        "/v1/bot-tables",
        "/v1/people-tables",
        "/v1/people-tables/<table_id>/seats",
        "/v1/people-tables/<table_id>/bots",
        "/v1/tables/<table_id>/hands/<int:number>/events",
        "/v1/tables/<table_id>/hands/<int:number>/void",
        "/v1/tables/<table_id>/chat",
        "/v1/log/cosignatures",
        "/v1/directors",
        "/v1/tournaments",
        "/v1/tournaments/<tid>/registration",
        "/v1/tournaments/<tid>/beacon",
        "/v1/tournaments/<tid>/start",
        "/v1/tournaments/<tid>/rounds/next",
        "/v1/tournaments/<tid>/rounds/end",
        "/v1/tournaments/<tid>/actions/<action>",
        "/v1/tournaments/<tid>/entrants",
        "/v1/tournaments/<tid>/reveals",
        "/v1/tournaments/<tid>/invitations",
        "/v1/tournaments/<tid>/invitations/<code>/accept",
        "/v1/tournaments/<tid>/invitations/<code>/cancel",
        "/v1/tournaments/<tid>/entrants/<pid>/withdraw",
    }
