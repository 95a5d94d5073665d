"""Defects found by hostile testing (issue 18, part 3), each against a real service.

Each test here failed on the code before its fix: a stranger's hostile input, a retried
or concurrent request, or a replay, must be refused with a 4xx naming what is wrong (or
have exactly one effect), never a 5xx or a traceback.
"""

from __future__ import annotations

import json
import urllib.error
import urllib.request
from collections.abc import Callable
from typing import Any

from audit.log.cosignature import witness_key_of
from audit.log.keys import generate_signer

from .conftest import Running
from .helpers import at_once, signed_write


def post_raw(
    url: str, path: str, body: bytes, headers: dict[str, str] | None = None
) -> tuple[int, Any]:
    req = urllib.request.Request(url + path, data=body, method="POST", headers=headers or {})
    try:
        with urllib.request.urlopen(req, timeout=30) as resp:
            return resp.status, json.loads(resp.read())
    except urllib.error.HTTPError as exc:
        return exc.code, json.loads(exc.read())


# ---------------------------------------------------------------- 4. cosignatures


def test_a_hostile_tree_size_in_a_cosigned_checkpoint_is_a_400(
    make_service: Callable[..., Running],
) -> None:
    """``²`` passes ``str.isdigit`` and 5000 digits pass it too, but ``int`` raises on
    both: the note is checked against the log key before its checkpoint is parsed, and
    the size line is parsed strictly (ASCII digits, at most 20)."""
    witness = generate_signer("w.test")
    service = make_service(witness_keys=(witness_key_of(witness).text(),))
    origin = service.origin
    root = "A" * 43 + "="
    for size in ("\u00b2", "9" * 5000, "\u0663", "12\u00b2"):
        body = f"{origin}\n{size}\n{root}\n\n\u2014 {origin} AAAAAAAA\n".encode()
        status, answer = post_raw(service.url, "/v1/log/cosignatures", body)
        assert status == 400, (size[:10], status, answer)
        assert answer["details"]["path"] == "body"


def test_a_checkpoint_parses_its_size_and_a_proof_its_index_strictly() -> None:
    """Signed by the log key or not, a size or index that ``int`` refuses is a NoteError
    or LogInconsistent (what a verifier turns into exit 2), never a ValueError."""
    import pytest

    from audit.log.checkpoint import parse, verify_tlog_proof
    from audit.log.errors import LogError
    from audit.log.note import sign

    signer = generate_signer("log.test")
    root = "A" * 43 + "="
    for size in ("\u00b2", "9" * 5000, "\u0663", "18446744073709551616", "01", "-1", " 1"):
        with pytest.raises(LogError):
            parse(f"log.test\n{size}\n{root}\n")
        note_text = sign(f"log.test\n1\n{root}\n", signer)
        with pytest.raises(LogError):
            verify_tlog_proof(
                f"c2sp.org/tlog-proof@v1\nindex {size}\n\n{note_text}", b"x", signer.verifier()
            )
    assert parse(f"log.test\n18446744073709551615\n{root}\n").size == 2**64 - 1


# ---------------------------------------------------------------- 1. round actions


def test_n_identical_director_and_round_requests_have_one_effect(
    backend: str, make_service: Callable[..., Running], tmp_path: Any
) -> None:
    """8 identical concurrent requests to each director and round route log one event;
    a retry of ``rounds/end`` once its round is over changes nothing (it ended the next
    round, and 8 at once ended the whole event). The requests go in turn to two services
    on one database and log (two workers or hosts), on SQLite and PostgreSQL."""
    import random

    from api.client import Identity
    from api.tournament_bot import TournamentBots

    from .test_tournaments import BEACON

    shared = str(tmp_path / "shared")  # one database file (SQLite) and one log key
    service = make_service(backend, data_dir=shared)
    services = (service, make_service(backend, data_dir=shared))
    client = service.client()
    admin = client.admin()
    spec = {"name": "Race", "format": "pairs-duplicate", "tables": 3, "boards_per_round": 1}
    tid = client.call("POST", "/v1/tournaments", spec, admin)["id"]
    path = f"/v1/tournaments/{tid}"

    def kinds() -> list[str]:
        events = client.call("GET", f"{path}/events")["events"]
        return [e["event"]["type"] for e in events]

    def each(route: str, body: dict[str, Any], kind: str, n: int = 8) -> None:
        before = kinds().count(kind)
        turn = iter(range(n))
        statuses = at_once(  # a client (a connection) each, to either service in turn
            n,
            lambda: (
                services[next(turn) % 2].client().raw("POST", f"{path}/{route}", body, admin)[:2]
            ),
        )
        assert all(s < 500 for s in statuses), (route, statuses)
        assert 200 in statuses, (route, statuses)
        assert kinds().count(kind) == before + 1, (route, statuses, kinds()[-6:])

    each("registration", {"open": True}, "tournament_registration")
    each("beacon", BEACON, "tournament_beacon")
    bots = TournamentBots(client, tid, {}, random.Random(5))
    bots.enter_pairs(5)
    strangers = TournamentBots(client, tid, {}, random.Random(6))
    strangers.enter_pairs(1, prefix="stranger")  # the last place taken
    for pid in sorted(strangers.entrants):
        each("actions/remove", {"entrant": pid, "reason": "unknown"}, "tournament_remove")
    bots.enter_pairs(1, prefix="sixth")
    each("registration", {"open": False}, "tournament_registration")
    each("start", {}, "tournament_start")
    doc = client.call("GET", path)
    silent = doc["pair_list"][2]["players"][0]
    bots.entrants.pop(silent)
    bots.reveal_all(doc)
    each("rounds/next", {"round": 1}, "tournament_deal")
    assert client.call("GET", path)["round"] == 1
    sub = Identity.generate("sub")
    client.register(sub, "substitute")
    out = client.call("GET", path)["pair_list"][0]["players"][0]
    body = {"pair": 1, "out": out, "in": sub.id, "reason": "ill"}
    each("actions/substitute", body, "tournament_substitute")
    adjust = {"round": 1, "table": 1, "board": 1, "ns": "average", "ew": "average"}
    each("actions/adjust", adjust | {"reason": "slow"}, "tournament_adjust")
    each("rounds/end", {"round": 1, "reason": "late"}, "tournament_round_end")
    doc = client.call("GET", path)
    assert doc["round"] == 2 and doc["phase"] == "playing"
    assert not doc["rounds_played"][1]["over"]
    # a plain retry of the same request: nothing changes
    again = client.raw("POST", f"{path}/rounds/end", {"round": 1, "reason": "late"}, admin)
    assert again[0] == 200 and client.call("GET", path)["round"] == 2
    assert kinds().count("tournament_round_end") == 1
    # a round action names its round: none, or one not being played, is refused
    for wrong in ({"reason": "late"}, {"round": 3, "reason": "late"}):
        status = client.raw("POST", f"{path}/rounds/end", wrong, admin)[0]
        assert status in (400, 409), (wrong, status)
    each("rounds/next", {"round": 3}, "tournament_round")
    doc = client.call("GET", path)
    assert doc["round"] == 3 and kinds().count("tournament_round_end") == 2
    each("actions/void_board", {"board": 2, "reason": "fouled"}, "tournament_void_board")
    each("actions/withdraw", {"pair": 2, "reason": "left"}, "tournament_withdraw")
    doc = client.call("GET", path)
    # no hand of an ended round is still open
    conn = service.app.extensions["fairplay"].db.connection()
    for r in doc["rounds_played"][:2]:
        for t in r["tables"]:
            open_ = conn.all(
                "SELECT number FROM api_hands WHERE table_id = ? AND phase NOT IN ('over', 'void')",
                (t["id"],),
            )
            assert not open_, (r["round"], t["id"])


def test_a_board_of_an_ended_event_takes_no_more_plays_on_any_host(
    backend: str, make_service: Callable[..., Running], tmp_path: Any
) -> None:
    """After ``tournament_end``, bots played a board of an ended round to its end (54 new
    log events): a host that had the hand in its cache still took plays. The round's end
    on one service voids the hand; the next play, sent to the other, is refused and
    nothing more is logged at the table, nor any board dealt there."""
    import random

    import pytest

    from api.client import ApiCallError
    from api.tournament_bot import TournamentBots

    from .test_tournaments import BEACON

    shared = str(tmp_path / "shared")
    first = make_service(backend, data_dir=shared)
    second = make_service(backend, data_dir=shared)
    client = first.client()
    spec = {"name": "Ended", "format": "pairs-duplicate", "tables": 1, "boards_per_round": 2}
    bots = TournamentBots.open(client, spec, 2, random.Random(8), BEACON)
    path = f"/v1/tournaments/{bots.tid}"
    bots.reveal_all(client.call("GET", path))
    sitting = client.call("GET", path)["rounds_played"][0]["tables"][0]
    table = sitting["id"]
    bots.client = second.client()  # the other host plays, and keeps the hand in its cache
    for _ in range(12):
        bots._step(bots.origin, sitting, once=True)
    seat, ident = next((s, bots.entrants[p].ident) for s, p in sitting["seats"].items())
    hand = bots._signed_get(ident, f"/v1/tables/{table}/hands/1")
    assert hand["phase"] == "playing", hand["phase"]
    seat = hand["waiting_for"][0]
    ident = bots.entrants[sitting["seats"][seat]].ident
    kind, body = bots._action(table, 1, seat, ident, hand["phase"])

    def logged() -> int:  # the table's events in the log (both hosts write one log)
        log = first.app.extensions["fairplay"].hand_log.log
        return sum(len(log.hand_events(table, str(n))) for n in (1, 2))

    admin = client.admin()
    client.call("POST", f"{path}/rounds/end", {"round": 1, "reason": "time"}, admin)
    assert client.call("GET", path)["phase"] == "over"
    before = logged()
    with pytest.raises(ApiCallError) as refused:
        second.client().act(
            ident, bots.origin, table, 1, hand["next_seq"], hand["last_hash"], kind, body
        )
    assert refused.value.status == 409, refused.value
    assert logged() == before
    assert int(client.call("GET", f"/v1/tables/{table}")["current_hand"]) == 1


# ---------------------------------------------------------------- 2. event scores


def test_an_uploaded_record_named_twice_is_refused_before_any_is_loaded(
    service: Running,
) -> None:
    """Naming one upload 300 times cost a load each (30 s, 1 GB) before the duplicate
    was refused: the ids are checked first, the second naming is the error."""
    from tests.tournament.test_score_cli import hand_computed_mitchell

    client = service.client(admin=False)
    record = hand_computed_mitchell()[0]
    upload = client.call("POST", "/v1/audits", record)["id"]
    status, _, payload = client.raw(
        "POST", "/v1/tournaments/scores", {"records": [record, *[upload] * 300]}
    )
    answer = json.loads(payload)
    assert status == 400 and answer["details"]["path"] == "records[2]", answer
    assert "named already (records[1])" in answer["message"]


def test_the_uploaded_records_one_scores_request_names_are_bounded_in_size(
    service: Running, monkeypatch: Any
) -> None:
    """At the 2000-reference cap distinct large uploads still cost minutes and gigabytes:
    their stored sizes are summed before any is loaded, and past the bound the request
    is a 400 naming the first reference over it (the bound made small here)."""
    import api.routes.audits
    from tests.tournament.test_score_cli import hand_computed_mitchell

    client = service.client(admin=False)
    records = hand_computed_mitchell()
    ids = [client.call("POST", "/v1/audits", r)["id"] for r in records[:3]]
    one = len(json.dumps(records[0]))
    monkeypatch.setattr(api.routes.audits, "EVENT_UPLOADED_BYTES_MAX", 2 * one + one // 2)
    loaded: list[str] = []
    real = api.routes.audits.rows.get_report
    monkeypatch.setattr(
        api.routes.audits.rows, "get_report", lambda c, i, *a: loaded.append(i) or real(c, i, *a)
    )
    status, _, payload = client.raw("POST", "/v1/tournaments/scores", {"records": ids})
    answer = json.loads(payload)
    assert status == 400 and answer["details"]["path"] == "records[2]", answer
    assert answer["details"]["limit"] == 2 * one + one // 2 and not loaded, answer


# ---------------------------------------------------------------- 9. substitutes


def test_a_player_substituted_out_is_not_seated_again_in_another_pair(
    make_service: Callable[..., Running],
) -> None:
    """Substituted out of pair 1 after round 1, a player came back into pair 5, which
    plays the boards he had played: refused, naming ``in``."""
    import random

    from api.client import Identity
    from api.tournament_bot import TournamentBots

    from .test_tournaments import BEACON, _play_table

    service = make_service()
    client = service.client()
    admin = client.admin()
    spec = {"name": "Subs", "format": "pairs-duplicate", "tables": 3, "boards_per_round": 1}
    bots = TournamentBots.open(client, spec, 6, random.Random(9), BEACON)
    path = f"/v1/tournaments/{bots.tid}"
    bots.reveal_all(client.call("GET", path))
    doc = client.call("GET", path)
    for t in doc["rounds_played"][0]["tables"]:
        _play_table(bots, t)
    doc = client.call("GET", path)
    assert doc["round"] == 2
    first = doc["pair_list"][0]["players"][0]
    sub = Identity.generate("sub")
    client.register(sub, "substitute")
    base = f"{path}/actions/substitute"
    client.call("POST", base, {"pair": 1, "out": first, "in": sub.id, "reason": "ill"}, admin)
    fifth = doc["pair_list"][4]["players"][0]
    status, _, payload = client.raw(
        "POST", base, {"pair": 5, "out": fifth, "in": first, "reason": "back"}, admin
    )
    assert status == 400 and json.loads(payload)["details"]["path"] == "in", payload
    # back into his own pair is allowed: the pair plays each board once
    client.call("POST", base, {"pair": 1, "out": sub.id, "in": first, "reason": "well"}, admin)


# ---------------------------------------------------------------- 5. streams of private tables


def test_a_duplicate_tables_streams_are_refused_before_streaming_and_its_seat_streams_work(
    make_service: Callable[..., Running],
) -> None:
    """A stranger's stream of a duplicate table answered 200 and then aborted with a
    traceback; the seated player's signed seat stream failed the same way (the guard
    read the Authorization header, the stream's signature is in its URL)."""
    import random
    import time

    from api.tournament_bot import TournamentBots

    from .test_sse import open_stream, read_events, signed
    from .test_tournaments import BEACON

    service = make_service()
    client = service.client()
    spec = {"name": "Streams", "format": "pairs-duplicate", "tables": 3, "boards_per_round": 1}
    bots = TournamentBots.open(client, spec, 6, random.Random(11), BEACON)
    path = f"/v1/tournaments/{bots.tid}"
    bots.reveal_all(client.call("GET", path))
    table = client.call("GET", path)["rounds_played"][0]["tables"][0]
    stream = f"/v1/tables/{table['id']}/stream"
    conn, resp = open_stream(service.url, stream)
    assert resp.status == 403 and json.loads(resp.read())["code"], resp.status
    conn.close()
    north = bots.entrants[table["seats"]["N"]].ident
    east = bots.entrants[table["seats"]["E"]].ident
    seat = f"/v1/tables/{table['id']}/seats/N/stream"
    conn, resp = open_stream(service.url, signed(east, seat, int(time.time())))
    assert resp.status == 403
    conn.close()
    conn, resp = open_stream(service.url, signed(north, seat, int(time.time())))
    assert resp.status == 200
    (kind, _), (kind2, state) = read_events(resp, 2)
    assert (kind, kind2) == ("table", "state") and state["cards"]["seat"] == "N"
    conn.close()


# ---------------------------------------------------------------- 11. one text rule


def test_event_names_schedules_and_reasons_follow_the_names_rule(service: Running) -> None:
    """Bidi overrides, zero-width characters, escapes and CR/LF were accepted in an
    event's name, schedule and a director's reason, and certified; and a long name made
    table names over the tables' own 64 characters."""
    import random

    from api.tournament_bot import TournamentBots

    from .test_tournaments import BEACON

    client = service.client()
    admin = client.admin()
    base = {"format": "pairs-duplicate", "tables": 3, "boards_per_round": 1}
    for field, value in (
        ("name", "Pairs\u202eevil"),
        ("name", "Pairs\u200bnight"),
        ("name", "Pairs\r\nSet-Cookie: x"),
        ("name", "Pairs\x1b[31m"),
        ("schedule", "Tuesday\u2066 7pm"),
        ("schedule", "Tuesday\n7pm"),
    ):
        body = {"name": "Pairs"} | base | {field: value}
        status, _, payload = client.raw("POST", "/v1/tournaments", body, admin)
        assert status == 400 and json.loads(payload)["details"]["path"] == field, (value, payload)
    long_name = "A very long tournament name " * 3
    bots = TournamentBots.open(client, {"name": long_name} | base, 6, random.Random(2), BEACON)
    path = f"/v1/tournaments/{bots.tid}"
    status, _, payload = client.raw(
        "POST", f"{path}/actions/withdraw", {"pair": 1, "reason": "left\u202e early"}, admin
    )
    assert status == 400 and json.loads(payload)["details"]["path"] == "reason", payload
    bots.reveal_all(client.call("GET", path))
    conn = service.app.extensions["fairplay"].db.connection()
    for t in client.call("GET", path)["rounds_played"][0]["tables"]:
        name = str(conn.one("SELECT name FROM api_tables WHERE id = ?", (t["id"],))[0])
        assert len(name) <= 64 and name.endswith(f"round 1 table {t['table']}"), name


# ---------------------------------------------------------------- 3. registration when full


def _registering(client: Any, name: str) -> tuple[str, str]:
    """A one-table event (two pairs) open for registration, with its beacon: id, path."""
    from .test_tournaments import BEACON

    admin = client.admin()
    spec = {"name": name, "format": "pairs-duplicate", "tables": 1, "boards_per_round": 1}
    tid = client.call("POST", "/v1/tournaments", spec, admin)["id"]
    path = f"/v1/tournaments/{tid}"
    client.call("POST", f"{path}/registration", {"open": True}, admin)
    client.call("POST", f"{path}/beacon", BEACON, admin)
    return tid, path


def test_registration_closes_when_the_event_is_full(service: Running) -> None:
    """With its pairs entered, two strangers naming each other made ``start`` answer 409
    for ever ("needs 2 pairs and 3 have entered"): they are refused, the event starts."""
    import random

    import pytest

    from api.client import ApiCallError
    from api.tournament_bot import TournamentBots

    client = service.client()
    admin = client.admin()
    tid, path = _registering(client, "Full")
    bots = TournamentBots(client, tid, {}, random.Random(4))
    bots.enter_pairs(2)
    with pytest.raises(ApiCallError) as refused:
        bots.enter_pairs(1, prefix="stranger")
    assert refused.value.status == 409 and "full" in str(refused.value)
    client.call("POST", f"{path}/registration", {"open": False}, admin)
    assert client.call("POST", f"{path}/start", {}, admin)["phase"] == "revealing"


def test_the_director_removes_entrants_before_the_start_logged_and_certified(
    service: Running, tmp_path: Any, capsys: Any
) -> None:
    """Two strangers who enter naming each other take the last place: nothing could
    remove them. The director removes each with a reason (a ``tournament_remove`` event;
    8 identical requests at once, one event), they cannot enter again, the pair they
    kept out enters, the event is played and its certificate verifies with the removals
    in it; after the start no entrant is removed."""
    import random

    import pytest

    from api.client import ApiCallError
    from api.tournament_bot import TournamentBots
    from audit.cli import main as audit_main

    client = service.client()
    admin = client.admin()
    tid, path = _registering(client, "Removed")
    bots = TournamentBots(client, tid, {}, random.Random(6))
    bots.enter_pairs(1)
    entered = set(bots.entrants)
    strangers = TournamentBots(client, tid, {}, random.Random(7))
    strangers.enter_pairs(1, prefix="stranger")
    with pytest.raises(ApiCallError) as full:
        bots.enter_pairs(1, prefix="late")
    assert full.value.status == 409 and "full" in str(full.value)
    bots.entrants = {p: e for p, e in bots.entrants.items() if p in entered}
    one, two = sorted(strangers.entrants)
    # an id that has not entered, and no reason, are refused, naming the field
    for body, field in (
        ({"entrant": "u-nobody", "reason": "x"}, "entrant"),
        ({"entrant": one}, "reason"),
    ):
        status, _, payload = client.raw("POST", f"{path}/actions/remove", body, admin)
        assert status == 400 and json.loads(payload)["details"]["path"] == field, payload
    body = {"entrant": one, "reason": "unknown to the club"}
    statuses = at_once(
        8, lambda: service.client().raw("POST", f"{path}/actions/remove", body, admin)[:2]
    )
    assert all(s < 500 for s in statuses) and 200 in statuses, statuses
    client.call("POST", f"{path}/actions/remove", body, admin)  # a retry: no change
    client.call("POST", f"{path}/actions/remove", {"entrant": two, "reason": "his partner"}, admin)
    events = [e["event"] for e in client.call("GET", f"{path}/events")["events"]]
    removals = [e["body"] for e in events if e["type"] == "tournament_remove"]
    assert removals == [
        {"entrant": one, "reason": "unknown to the club"},
        {"entrant": two, "reason": "his partner"},
    ]
    doc = client.call("GET", path)
    assert doc["removed"] == [one, two]
    assert {e["player"] for e in doc["entrants"] if e["removed"]} == {one, two}
    # a removed entrant cannot enter again; the pair kept out now enters
    from api.tournament_bot import registration as registration_event

    e = strangers.entrants[one]
    status, _, payload = client.raw(
        "POST",
        f"{path}/entrants",
        registration_event(bots.origin, tid, e.ident, e.partner, e.seed),
    )
    assert status == 409 and "removed" in json.loads(payload)["message"], payload
    bots.enter_pairs(1, prefix="kept")
    client.call("POST", f"{path}/registration", {"open": False}, admin)
    started = client.call("POST", f"{path}/start", {}, admin)
    players = {p for pair in started["pair_list"] for p in pair["players"]}
    assert players == set(bots.entrants) and not started["unpaired"]
    status, _, _ = client.raw(
        "POST", f"{path}/actions/remove", {"entrant": players.pop(), "reason": "late"}, admin
    )
    assert status == 409
    assert bots.run(timeout=120)["phase"] == "over"
    bundle = bots.certificate_bundle(timeout=120)
    actions = bundle["certificate"]["actions"]
    assert [a for a in actions if a["action"] == "remove"] == [
        {"action": "remove", **r} for r in removals
    ]
    (tmp_path / "bundle.json").write_text(json.dumps(bundle))
    capsys.readouterr()
    verified = audit_main(
        ["tournament", "verify", str(tmp_path / "bundle.json"), "--key", bots.log_key().text()]
    )
    assert verified == 0, capsys.readouterr()


# ---------------------------------------------------------------- 7. abandoned bot tables


def test_house_bots_at_an_abandoned_table_stop(
    make_service: Callable[..., Running], monkeypatch: Any
) -> None:
    """Each ceremony-timeout void counted as activity: a table nobody plays logged a
    void, an opening and three commits every timeout for ever and held a runner. Only
    what follows the person's own action counts (the idle limit is shortened here)."""
    import time

    import api.house
    from api.client import Identity

    monkeypatch.setattr(api.house, "IDLE_SECONDS", 3.0)
    service = make_service(bot_tables=True, ceremony_timeout=1, bot_pause=0.0, bot_pace=0.0)
    client = service.client()
    person = Identity.generate("person")
    client.register(person, "person")
    body = {"name": "left alone"}
    status, _, payload = client.raw(
        "POST", "/v1/bot-tables", body, headers=signed_write(person, "/v1/bot-tables", body)
    )
    assert status == 201, payload
    table_id = json.loads(payload)["id"]
    house = service.app.extensions["fairplay_house"]
    deadline = time.monotonic() + 20
    while house._runners[table_id].is_alive() and time.monotonic() < deadline:
        time.sleep(0.2)
    assert not house._runners[table_id].is_alive(), "the bots still play an abandoned table"
    conn = service.app.extensions["fairplay"].db.connection()
    hands = int(conn.one("SELECT COUNT(*) FROM api_hands WHERE table_id = ?", (table_id,))[0])
    time.sleep(2.5)  # the timeout passes again: nothing more is logged
    again = int(conn.one("SELECT COUNT(*) FROM api_hands WHERE table_id = ?", (table_id,))[0])
    assert again == hands


# ---------------------------------------------------------------- 8. bot tables refused


def test_a_refused_bot_table_leaves_nothing_behind(
    make_service: Callable[..., Running], monkeypatch: Any
) -> None:
    """With every runner slot taken, ``POST /v1/bot-tables`` answered 429 after the
    table and its three bot players were made: a refusal changes nothing."""

    import api.house
    from api.client import Identity

    monkeypatch.setattr(api.house, "MAX_RUNNERS", 1)
    service = make_service(bot_tables=True, bot_pause=0.0, bot_pace=0.0)
    client = service.client()
    person = Identity.generate("person")
    client.register(person, "person")
    conn = service.app.extensions["fairplay"].db.connection()

    def counts() -> tuple[int, int]:
        tables = conn.one("SELECT COUNT(*) FROM api_tables")
        players = conn.one("SELECT COUNT(*) FROM api_players")
        assert tables is not None and players is not None
        return int(tables[0]), int(players[0])

    def open_one() -> int:  # a fresh nonce each: two requests, not one replayed
        headers = signed_write(person, "/v1/bot-tables", {"name": "t"})
        return client.raw("POST", "/v1/bot-tables", {"name": "t"}, headers=headers)[0]

    assert open_one() == 201
    before = counts()
    assert open_one() == 429
    assert counts() == before


# ---------------------------------------------------------------- 6. streams per client


def test_spectators_cannot_shut_the_players_streams_out(
    make_service: Callable[..., Running],
) -> None:
    """Four anonymous connections took every stream slot of a host and every player's
    stream was refused: spectators draw from their own pool, a client holds at most
    two streams in a pool, and a seated player's stream still opens."""
    import time

    from .helpers import open_table
    from .test_sse import open_stream, read_events, signed

    service = make_service(max_streams=4)
    t = open_table(service.client(), service.origin)
    watching = []
    statuses = []
    for _ in range(4):
        conn, resp = open_stream(service.url, f"/v1/tables/{t.id}/stream")
        statuses.append(resp.status)
        if resp.status == 200:
            read_events(resp, 1)
        watching.append(conn)
    assert statuses.count(200) >= 1 and 429 in statuses, statuses
    for player in ("N", "E"):
        path = f"/v1/tables/{t.id}/seats/{player}/stream"
        conn, resp = open_stream(service.url, signed(t.players[player], path, int(time.time())))
        assert resp.status == 200, (player, resp.status)
        assert read_events(resp, 2)[1][1]["cards"]["seat"] == player
        watching.append(conn)
    for conn in watching:
        conn.close()


def test_a_bot_table_request_is_not_replayed(make_service: Callable[..., Running]) -> None:
    """The same Authorization header opened two tables: the request signs its body and a
    nonce (cayenne-fairplay/write/v1), the service takes a player's nonce once, and a
    changed body or a signature without a nonce is refused."""
    import time

    from api.client import Identity
    from api.signing import sign_read

    service = make_service(bot_tables=True, bot_pause=0.0, bot_pace=0.0)
    client = service.client()
    person = Identity.generate("person")
    client.register(person, "person")
    route = "/v1/bot-tables"
    headers = signed_write(person, route, {"name": "t"}, nonce="ab" * 16)
    first = client.raw("POST", route, {"name": "t"}, headers=headers)
    again = client.raw("POST", route, {"name": "t"}, headers=headers)
    assert first[0] == 201 and again[0] == 409, (first[0], again[0])
    assert json.loads(again[2])["details"]["path"] == "Authorization"
    # the same nonce signed again a second later: taken already
    later = signed_write(person, route, {"name": "t"}, int(time.time()) + 1, "ab" * 16)
    assert client.raw("POST", route, {"name": "t"}, headers=later)[0] == 409
    # the body is signed: another name under the same header is refused
    fresh = signed_write(person, route, {"name": "t"})
    status, _, payload = client.raw("POST", route, {"name": "other"}, headers=fresh)
    assert status == 401 and "signature" in json.loads(payload)["message"], payload
    # a read's signature (no nonce, no body) no longer opens a table
    read = sign_read(person.signer, person.id, "POST", route, int(time.time()))
    status, _, payload = client.raw("POST", route, {"name": "t"}, headers={"Authorization": read})
    assert status == 401 and "nonce" in json.loads(payload)["message"], payload
    conn = service.app.extensions["fairplay"].db.connection()
    assert int(conn.one("SELECT COUNT(*) FROM api_tables")[0]) == 1
