"""Hostile input is refused with a 400 naming the field, never a 5xx, and changes nothing.

NUL characters and lone surrogates in any path, query or body value; bodies nested
deeper than the limit; dates at the ends of the calendar; names with bidi overrides,
zero-width or control characters; a proof of size 0; the same raw key registered twice
under two names. Each on SQLite and on PostgreSQL, through a real server.
"""

from __future__ import annotations

import copy
import http.client
import json
import random
import time
from collections.abc import Callable
from typing import Any

import pytest

from api.client import Identity
from api.errors import status_of
from audit.errors import InvalidInput
from audit.log.keys import Verifier
from tests.api.conftest import Running
from tests.api.helpers import open_table
from tests.api.snapshot import changes, snapshot

Raw = tuple[int, dict[str, str], bytes]


def send(
    svc: Running, method: str, path: str, body: bytes | None = None, admin: bool = True
) -> Raw:
    c = svc.client()
    h = http.client.HTTPConnection(c.host, c.port, timeout=60)
    headers = {"Accept": "application/json", **(c.admin() if admin else {})}
    if body is not None:
        headers["Content-Type"] = "application/json"
    h.request(method, path, body=body, headers=headers)
    r = h.getresponse()
    out = r.status, {k.lower(): v for k, v in r.getheaders()}, r.read()
    h.close()
    return out


def refused(got: Raw, path: str, status: int = 400, code: str = "BAD_REQUEST") -> dict[str, Any]:
    """The answer is the JSON error shape with ``status``, ``code`` and ``details.path``."""
    st, headers, body = got
    assert st == status, (st, body[:300])
    assert headers["content-type"].startswith("application/json")
    doc = json.loads(body)
    assert set(doc) == {"code", "message", "details"}
    assert doc["code"] == code, doc
    assert doc["details"].get("path") == path, doc
    return doc


@pytest.fixture
def svc(make_service: Callable[..., Running], backend: str) -> Running:
    return make_service(backend, self_registration=True)


def unchanged(svc: Running, action: Callable[[], Any]) -> Any:
    db = svc.app.extensions["fairplay"].db
    before = snapshot(db)
    out = action()
    assert changes(before, snapshot(db)) == {}
    return out


def record(svc: Running) -> dict[str, Any]:
    """A valid cayenne-record/1 of a hand played on the service."""
    from api.bot import TableBots

    bots = TableBots.open(svc.client(), random.Random(3))
    bots.play_hand(1)
    doc: dict[str, Any] = svc.client().call("GET", f"/v1/tables/{bots.table}/hands/1/record")
    return doc


# ------------------------------------------------------------------ NUL and surrogates


NUL_PATHS = [
    ("/v1/players/p-%00", "player_id"),
    ("/v1/tables/t-%00x", "table_id"),
    ("/v1/tables/t-%00x/hands/1", "table_id"),
    ("/v1/tables/t-%00x/hands/1/seats/N/cards", "table_id"),
    ("/v1/tables/t-1/hands/1/seats/N%00/cards", "seat"),
    ("/v1/audits/r-%00", "report_id"),
    ("/v1/log/hands/t-%00/1", "table_id"),
    ("/tables/t-%00", "table_id"),
    ("/reports/r-%00", "report_id"),
    ("/v1/players?after=%00", "after"),
    ("/v1/tables?after=a%00", "after"),
    ("/v1/audits?player=a%00b", "player"),
    ("/v1/audits?table=%00", "table"),
    ("/v1/audits?code=%00", "code"),
    ("/v1/audits?x%00=1", "x\x00"),
]


def test_nul_in_a_path_or_query_value_is_a_400_naming_it(svc: Running) -> None:
    for path, field in NUL_PATHS:
        doc = unchanged(svc, lambda p=path, f=field: refused(send(svc, "GET", p), f))
        assert "NUL" in doc["message"], path


@pytest.mark.parametrize(
    ("where", "value", "path"),
    [
        ("table", "t\x00", "table"),
        ("event", "\ud800", "event"),
        ("player", "a\x00b", "players.N"),
        ("player", "\udfff", "players.N"),
        ("key", "\ud800", "$"),
    ],
)
def test_an_uploaded_record_with_nul_or_a_lone_surrogate_is_refused_and_not_stored(
    svc: Running, where: str, value: str, path: str
) -> None:
    doc = record(svc)
    if where == "player":
        doc["players"]["N"] = value
    elif where == "key":
        doc[value] = 1
    else:
        doc[where] = value
    body = json.dumps(doc).encode()  # ensure_ascii: a lone surrogate travels as \ud800
    got = unchanged(svc, lambda: send(svc, "POST", "/v1/audits", body))
    refused(got, path)


def test_a_lone_surrogate_in_a_player_or_table_name_is_a_400(svc: Running) -> None:
    ident = Identity.generate("x")
    body = json.dumps({"name": "a\ud800", "public_key": ident.public_key}).encode()
    unchanged(svc, lambda: refused(send(svc, "POST", "/v1/players", body), "name"))
    table = open_table(svc.client(), svc.origin)
    seats = {s: p.id for s, p in table.players.items()}
    body = json.dumps({"name": "\udc00t", "seats": seats}).encode()
    unchanged(svc, lambda: refused(send(svc, "POST", "/v1/tables", body), "name"))
    bad_seat = json.dumps({"name": "t", "seats": dict(seats, N="p-\x00")}).encode()
    unchanged(svc, lambda: refused(send(svc, "POST", "/v1/tables", bad_seat), "seats.N"))


def test_a_signed_event_with_nul_in_a_field_is_refused_before_the_log(svc: Running) -> None:
    table = open_table(svc.client(), svc.origin)
    h = table.hand()
    ident = table.players["N"]
    from audit.log.events import make_event, sign_event

    event = sign_event(
        make_event(
            origin=svc.origin,
            table=table.id,
            hand=1,
            seq=h["next_seq"],
            prev=h["last_hash"],
            actor=ident.id,
            type="commit",
            body={"commitment": "ab\x00"},
        ),
        ident.signer,
    )
    body = json.dumps(event).encode()
    path = f"/v1/tables/{table.id}/hands/1/events"
    unchanged(svc, lambda: refused(send(svc, "POST", path, body), "event.body.commitment"))


# ------------------------------------------------------------------------------ nesting

POSTS = [
    "/v1/players",
    "/v1/tables",
    "/v1/audits",
    "/v1/tables/t-1/hands/1/events",
    "/v1/tables/t-1/hands/1/void",
]


@pytest.mark.parametrize("route", POSTS)
def test_deeply_nested_json_is_a_400_on_every_post(svc: Running, route: str) -> None:
    root = "event" if route.endswith("/events") else "$"  # an event's paths start at event
    deep = b"[" * 100_000 + b"]" * 100_000
    doc = unchanged(svc, lambda: refused(send(svc, "POST", route, deep), root))
    assert "deeper than 64" in doc["message"]
    objects = b'{"a":' * 30_000 + b"1" + b"}" * 30_000
    refused(send(svc, "POST", route, objects), root)
    just_over = b"[" * 65 + b"]" * 65
    refused(send(svc, "POST", route, just_over), root)


def test_brackets_inside_strings_do_not_count_towards_the_depth(svc: Running) -> None:
    ident = Identity.generate("x")
    body = json.dumps({"name": "[[[[" * 10, "public_key": ident.public_key, "x": '\\"[' * 500})
    got = send(svc, "POST", "/v1/players", body.encode())
    assert got[0] == 201, got


def test_a_deep_cursor_is_a_400(svc: Running) -> None:
    import base64

    cursor = base64.urlsafe_b64encode(b"[" * 3000).decode().rstrip("=")
    refused(send(svc, "GET", f"/v1/audits?cursor={cursor}"), "cursor")


# -------------------------------------------------------------------------------- dates


def test_dates_off_the_calendar_in_utc_are_a_400(svc: Running) -> None:
    for query, field in [
        ("since=0001-01-01T00:00:00%2B01:00", "since"),
        ("until=0001-01-01T00:00:00%2B00:01", "until"),
        ("since=9999-12-31T23:59:59-01:00", "since"),
        ("until=9999-12-31T23:30:00-00:31", "until"),
    ]:
        doc = refused(send(svc, "GET", f"/v1/audits?{query}"), field)
        assert "range" in doc["message"], query


def test_the_ends_of_the_calendar_in_utc_are_accepted(svc: Running) -> None:
    for query in [
        "since=0001-01-01",
        "until=9999-12-31",
        "since=0001-01-01T00:00:00Z",
        "until=9999-12-31T23:59:59Z",
        "since=0001-01-01T00:30:00%2B00:30",
    ]:
        status, _, body = send(svc, "GET", f"/v1/audits?{query}")
        assert status == 200, (query, body)


# --------------------------------------------------------------------------------- keys


def test_the_same_raw_key_under_another_name_is_a_409_that_changes_nothing(svc: Running) -> None:
    ident = Identity.generate("alice")
    svc.client().register(ident, "Alice")
    other = Verifier("mallory", ident.signer.public_key).text()
    assert other != ident.public_key
    body = json.dumps({"name": "Mallory", "public_key": other}).encode()
    refused(
        unchanged(svc, lambda: send(svc, "POST", "/v1/players", body)),
        "public_key",
        409,
        "CONFLICT",
    )
    # The same key and name again: refused the same way.
    again = json.dumps({"name": "Alice", "public_key": ident.public_key}).encode()
    refused(
        unchanged(svc, lambda: send(svc, "POST", "/v1/players", again)),
        "public_key",
        409,
        "CONFLICT",
    )


# -------------------------------------------------------------------------------- names


BAD_NAMES = [
    "Eve\u202egnp.exe",  # right-to-left override
    "A\u2066B\u2069",  # bidi isolates
    "Bob\u200b",  # zero-width space
    "Zoe\u200d",  # zero-width joiner
    "\ufeffAnn",  # byte order mark
    "Del\x7f",  # DEL
    "C1\x85name",  # NEL, a C1 control
    "C1\x9bname",  # CSI
    "tab\there",  # C0
    "line\u2028sep",  # line separator
]


def test_names_with_invisible_or_control_characters_are_refused(svc: Running) -> None:
    table = open_table(svc.client(), svc.origin)
    seats = {s: p.id for s, p in table.players.items()}
    for name in BAD_NAMES:
        ident = Identity.generate("x")
        player = json.dumps({"name": name, "public_key": ident.public_key}).encode()
        doc = unchanged(svc, lambda b=player: refused(send(svc, "POST", "/v1/players", b), "name"))
        assert (
            f"U+{ord(next(c for c in name if not c.isalnum() and c not in '.')):04X}"
            in doc["message"]
        ), name
        body = json.dumps({"name": name, "seats": seats}).encode()
        unchanged(svc, lambda b=body: refused(send(svc, "POST", "/v1/tables", b), "name"))


def test_names_in_any_script_are_accepted(svc: Running) -> None:
    for name in ["Zoë", "渡辺", "O'Brien-Smith", "Ана Мария", "עדי", "🂡 club"]:
        ident = Identity.generate("x")
        assert svc.client().register(ident, name)["name"] == name


# ---------------------------------------------------------------------------- proof size


@pytest.mark.parametrize(
    ("query", "field"),
    [("index=0&size=0", "size"), ("from=1&to=0", "to")],
)
def test_a_proof_for_a_tree_of_size_0_is_refused(svc: Running, query: str, field: str) -> None:
    open_table(svc.client(), svc.origin)  # the log has entries
    kind = "inclusion" if "index" in query else "consistency"
    unchanged(svc, lambda: refused(send(svc, "GET", f"/v1/log/proofs/{kind}?{query}"), field))


def test_an_unchanged_record_is_accepted(svc: Running) -> None:
    doc = record(svc)
    body = json.dumps(copy.deepcopy(doc)).encode()
    assert send(svc, "POST", "/v1/audits", body)[0] == 201


def test_nul_in_a_signed_read_header_is_a_400(svc: Running) -> None:
    table = open_table(svc.client(), svc.origin)
    c = svc.client()
    h = http.client.HTTPConnection(c.host, c.port, timeout=60)
    header = f"Cayenne-Ed25519 player=p-\x00,ts={int(time.time())},sig=AAAA"
    h.request(
        "GET", f"/v1/tables/{table.id}/hands/1/seats/N/cards", headers={"Authorization": header}
    )
    r = h.getresponse()
    refused((r.status, {k.lower(): v for k, v in r.getheaders()}, r.read()), "Authorization")


@pytest.mark.parametrize("bad", ["p-\x00", "p-\ud800"])
def test_the_database_refuses_text_it_cannot_hold_before_its_driver(svc: Running, bad: str) -> None:
    """The last line of defence under the checks at the edge: a 400, never a driver error
    (a domain error, InvalidInput, that the service answers as 400 BAD_REQUEST)."""
    conn = svc.app.extensions["fairplay"].db.connection()
    with pytest.raises(InvalidInput, match="cannot be stored or looked up") as refused:
        conn.one("SELECT id FROM api_players WHERE id = ?", (bad,))
    assert (status_of(refused.value), refused.value.code) == (400, "BAD_REQUEST")
