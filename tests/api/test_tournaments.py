"""Tournaments on the real HTTP service: bots play whole events (SQLite and PostgreSQL),
the service's standings equal ``fairplay tournament score`` over the event's records,
director actions change the standings as the spec says, and no one reads a board
before he has played it (docs/tournaments.md)."""

from __future__ import annotations

import json
import random
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from api.client import ApiCallError, Client, Identity
from api.signing import sign_read
from api.tournament_bot import Entrant, TournamentBots
from audit.cli import main as audit_main
from shuffle.tournament import verify_tournament

from .conftest import Running

BEACON = {"source": "test-beacon", "round": 7, "randomness": "ab" * 32}


def _admin(client: Client, method: str, path: str, body: Any = None) -> Any:
    return client.call(method, path, body if body is not None else {}, client.admin())


def open_event(
    service: Running, body: dict[str, Any], pairs: int
) -> tuple[Client, str, TournamentBots]:
    client = service.client()
    bots = TournamentBots.open(client, body, pairs, random.Random(7), BEACON)
    tid = bots.tid
    return client, tid, bots


def signed_get(bots: TournamentBots, player: str, path: str) -> tuple[int, Any]:
    ident = bots.entrants[player].ident
    auth = sign_read(ident.signer, ident.id, "GET", path, int(time.time()))
    status, _, payload = bots.client.raw("GET", path, headers={"Authorization": auth})
    return status, json.loads(payload)


def cli_standings(
    records: list[dict[str, Any]], folder: Path, capsys: pytest.CaptureFixture[str]
) -> Any:
    folder.mkdir()
    for i, rec in enumerate(records):
        (folder / f"r{i}.json").write_text(json.dumps(rec))
    capsys.readouterr()
    assert audit_main(["tournament", "score", str(folder), "--format", "json"]) in (0, 1)
    return json.loads(capsys.readouterr().out)


MITCHELL = {
    "name": "Tuesday pairs",
    "format": "pairs-duplicate",
    "tables": 3,
    "boards_per_round": 2,
    "rounds": 3,
}


def test_a_whole_mitchell_played_by_bots(
    backend: str,
    make_service: Callable[..., Running],
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    service = make_service(backend)
    client, tid, bots = open_event(service, MITCHELL, 6)
    final = bots.run(timeout=300)
    assert final["phase"] == "over" and [r["over"] for r in final["rounds_played"]] == [True] * 3
    standings = client.call("GET", f"/v1/tournaments/{tid}/standings")
    records = client.call("GET", f"/v1/tournaments/{tid}/records")["records"]
    assert len(records) == 9 and all(len(r["hands"]) == 2 for r in records)
    by_cli = cli_standings(records, tmp_path / "records", capsys)
    strip = [{k: v for k, v in s.items() if k != "pair_number"} for s in standings["standings"]]
    assert strip == by_cli["standings"]
    assert standings["boards"] == by_cli["boards"]
    # every board, as played at every table, is the one the published transcript derives
    deals = {
        d.board: d
        for d in verify_tournament(client.call("GET", f"/v1/tournaments/{tid}/transcript"))
    }
    assert sorted(deals) == [1, 2, 3, 4, 5, 6]
    for rec in records:
        for h in rec["hands"]:
            d = deals[h["board"]]
            assert h["cayenne"] == d.to_json()["cayenne"] and h["dealer"] == d.dealer.name
    # the log holds the whole event: the chain, and every entrant's reveal at the end
    events = client.call("GET", f"/v1/tournaments/{tid}/events")["events"]
    kinds = [e["event"]["type"] for e in events]
    assert kinds[0] == "tournament_create" and kinds[-1] == "tournament_end"
    assert kinds.count("tournament_round") == 3 and kinds.count("tournament_round_end") == 3
    some = next(iter(bots.entrants))
    chain = client.call("GET", f"/v1/tournaments/{tid}/events?entrant={some}")["events"]
    assert [e["event"]["type"] for e in chain] == ["tournament_register", "tournament_reveal"]


def test_a_whole_round_robin_played_by_bots(
    backend: str,
    make_service: Callable[..., Running],
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    service = make_service(backend)
    body = {"name": "RR", "format": "rubber-round-robin", "pairs": 4, "hands_per_match": 2}
    client, tid, bots = open_event(service, body, 4)
    final = bots.run(timeout=300)
    assert final["phase"] == "over" and len(final["rounds_played"]) == 3
    standings = client.call("GET", f"/v1/tournaments/{tid}/standings")
    records = client.call("GET", f"/v1/tournaments/{tid}/records")["records"]
    assert len(records) == 6 and all(len(r["hands"]) == 2 for r in records)
    assert standings["standings"] == cli_standings(records, tmp_path / "rr", capsys)["standings"]


def _play_table(bots: TournamentBots, sitting: dict[str, Any]) -> None:
    origin = bots.origin
    for _ in range(2000):
        if not bots._step(origin, sitting):
            return


def test_no_one_reads_a_board_before_playing_it(make_service: Callable[..., Running]) -> None:
    service = make_service()
    client, tid, bots = open_event(service, MITCHELL, 6)
    bots.reveal_all(client.call("GET", f"/v1/tournaments/{tid}"))
    doc = client.call("GET", f"/v1/tournaments/{tid}")
    assert doc["phase"] == "playing"
    t1, t2 = doc["rounds_played"][0]["tables"][:2]
    _play_table(bots, t1)  # table 1 plays boards 1 and 2; table 2 has not
    outsider = t2["seats"]["N"]
    insider = t1["seats"]["E"]
    base = f"/v1/tables/{t1['id']}"
    for path in (
        base,
        f"{base}/record",
        f"{base}/hands",
        f"{base}/hands/1",
        f"{base}/hands/1/events",
        f"{base}/hands/1/record",
        f"{base}/hands/1/report",
        f"{base}/hands/1/proof",
        f"/v1/log/hands/{t1['id']}/1",
        f"/tables/{t1['id']}/hands/1",
        f"/v1/tournaments/{tid}/boards/1",
        f"/v1/tournaments/{tid}/records",
        f"/v1/tournaments/{tid}/transcript",
        f"/v1/tournaments/{tid}/pairs/1",
    ):
        status, body = signed_get(bots, outsider, path)
        assert status == 403, (path, status, body)
        assert client.raw("GET", path)[0] == 403, path  # unsigned
        assert client.raw("GET", path, headers=client.admin())[0] == 403, path  # the director
    # the players of table 1 read their own board
    assert signed_get(bots, insider, f"{base}/hands/1/record")[0] == 200
    assert signed_get(bots, insider, f"/v1/tournaments/{tid}/boards/1")[0] == 200
    report_id = signed_get(bots, insider, f"{base}/hands/1")[1]["report_id"]
    assert signed_get(bots, outsider, f"/v1/audits/{report_id}")[0] == 403
    assert signed_get(bots, insider, f"/v1/audits/{report_id}")[0] == 200
    # the log withholds the board's events (plays would show the cards)
    entries = client.call("GET", "/v1/log/entries?start=0&end=1000")["entries"]
    hidden = [e for e in entries if e.get("withheld")]
    assert hidden and all(e["event"] is None for e in hidden)
    assert not any(e["event"] and e["event"]["table"] == t1["id"] for e in entries)
    # standings during the event carry no board's results
    assert client.call("GET", f"/v1/tournaments/{tid}/standings")["boards"] == []


def test_bots_with_the_same_keys_share_the_tables_by_number(
    make_service: Callable[..., Running],
) -> None:
    service = make_service()
    body = {**MITCHELL, "boards_per_round": 1, "rounds": 2}
    client, tid, bots = open_event(service, body, 6)
    bots.reveal_all(client.call("GET", f"/v1/tournaments/{tid}"))
    first = client.call("GET", f"/v1/tournaments/{tid}")["rounds_played"][0]["tables"]
    player = first[0]["seats"]["N"]
    path = f"/v1/tables/{first[0]['id']}/hands/1"
    before = signed_get(bots, player, path)[1]["next_seq"]
    share = {"client": service.client(), "tid": tid, "entrants": bots.entrants}
    even = TournamentBots(**share, rng=random.Random(2), tables=frozenset({2}))
    with pytest.raises(TimeoutError):  # alone, it plays table 2 and waits for the others
        even.run(timeout=2)
    assert signed_get(bots, player, path)[1]["next_seq"] == before  # table 1: untouched
    odd = TournamentBots(**share, rng=random.Random(1), tables=frozenset({1, 3}))
    odd.client = service.client()
    done = threading.Thread(target=odd.run, kwargs={"timeout": 120})
    done.start()
    assert even.run(timeout=120)["phase"] == "over"
    done.join()


def test_director_actions_change_the_standings_as_the_spec_says(
    make_service: Callable[..., Running],
) -> None:
    service = make_service()
    body = {
        "name": "Directed",
        "format": "pairs-duplicate",
        "tables": 3,
        "boards_per_round": 2,
        "rounds": 3,
    }
    client, tid, bots = open_event(service, body, 6)
    bots.reveal_all(client.call("GET", f"/v1/tournaments/{tid}"))
    doc = client.call("GET", f"/v1/tournaments/{tid}")
    base = f"/v1/tournaments/{tid}/actions"
    # a substitute for pair 4's first player from round 2 on
    sub = Identity.generate("sub")
    client.register(sub, "substitute")
    out = doc["pair_list"][3]["players"][0]
    _admin(
        client, "POST", f"{base}/substitute", {"pair": 4, "out": out, "in": sub.id, "reason": "ill"}
    )
    _admin(
        client,
        "POST",
        f"{base}/adjust",
        {
            "round": 1,
            "table": 1,
            "board": 1,
            "ns": "average-plus",
            "ew": "average-minus",
            "reason": "slow play",
        },
    )
    _admin(client, "POST", f"{base}/void_board", {"board": 6, "reason": "misboarded"})
    bad = client.raw(
        "POST",
        f"{base}/adjust",
        {"round": 1, "table": 1, "board": 5, "ns": "average", "ew": "average", "reason": "x"},
        client.admin(),
    )
    assert bad[0] == 400 and json.loads(bad[2])["details"]["path"] == "board"
    no_reason = client.raw("POST", f"{base}/withdraw", {"pair": 2}, client.admin())
    assert no_reason[0] == 400 and json.loads(no_reason[2])["details"]["path"] == "reason"
    for t in doc["rounds_played"][0]["tables"]:
        _play_table(bots, t)
    doc = client.call("GET", f"/v1/tournaments/{tid}")
    assert doc["round"] == 2
    _admin(client, "POST", f"{base}/withdraw", {"pair": 2, "reason": "left"})
    bots.entrants[sub.id] = Entrant(sub, "", b"\0" * 32)  # the bots play his seat
    final = bots.run(timeout=300)
    assert final["phase"] == "over"
    st = client.call("GET", f"/v1/tournaments/{tid}/standings")
    boards = {b["board"]: b for b in st["boards"]}
    assert 6 not in boards  # void: no result counts
    top = boards[1]["top"]
    adjusted = next(r for r in boards[1]["results"] if r["round"] == 1 and r["table"] == "1")
    assert adjusted["adjusted"] == {"ns": "average-plus", "ew": "average-minus"}
    assert adjusted["ns_matchpoints"] == round(0.6 * top, 2) and adjusted[
        "ew_matchpoints"
    ] == round(0.4 * top, 2)
    # pair 2 (NS at table 2) withdrawn from round 3: its boards there are average minus,
    # its opponents' average; round 3's table 2 was not played
    r3 = [
        r
        for b in st["boards"].__iter__()
        for r in b["results"]
        if r["round"] == 3 and r["table"] == "2"
    ]
    assert r3 and all(r["adjusted"] == {"ns": "average-minus", "ew": "average"} for r in r3)
    assert not any(t["table"] == 2 for t in final["rounds_played"][2]["tables"])
    # the substitute sits in pair 4 from round 2 on, and the standings name him
    pair4 = [t for r in final["rounds_played"][1:] for t in r["tables"] if t["ew"] == 4]
    assert pair4 and all(sub.id in t["seats"].values() for t in pair4)
    assert any(sub.id in s["pair"] for s in st["standings"])
    kinds = [
        e["event"]["type"] for e in client.call("GET", f"/v1/tournaments/{tid}/events")["events"]
    ]
    for k in (
        "tournament_substitute",
        "tournament_adjust",
        "tournament_void_board",
        "tournament_withdraw",
    ):
        assert kinds.count(k) == 1


def test_a_pair_that_never_reveals_is_withdrawn_before_the_first_board(
    make_service: Callable[..., Running],
) -> None:
    service = make_service()
    body = {"name": "RR", "format": "rubber-round-robin", "pairs": 3, "hands_per_match": 1}
    client, tid, bots = open_event(service, body, 3)
    silent = client.call("GET", f"/v1/tournaments/{tid}")["pair_list"][2]["players"][0]
    kept = bots.entrants.pop(silent)
    bots.reveal_all(client.call("GET", f"/v1/tournaments/{tid}"))
    assert client.call("GET", f"/v1/tournaments/{tid}")["phase"] == "revealing"
    doc = _admin(client, "POST", f"/v1/tournaments/{tid}/rounds/next", {"round": 1})
    assert doc["phase"] == "playing" and doc["absent"] == [3] and silent not in doc["revealed"]
    for r in doc["rounds_played"]:
        assert all(silent not in t["seats"].values() for t in r["tables"])
    late = client.raw("POST", f"/v1/tournaments/{tid}/reveals", {}, None)
    assert late[0] == 400
    del kept
    with pytest.raises(ApiCallError):
        _admin(client, "POST", f"/v1/tournaments/{tid}/start")


def test_fairplay_bot_tournament_plays_the_seats_in_its_state_folder(
    make_service: Callable[..., Running], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from api.bot import BotState

    from .conftest import ADMIN

    service = make_service()
    client = service.client()
    body = {"name": "Duo", "format": "rubber-round-robin", "pairs": 2, "hands_per_match": 1}
    tid = _admin(client, "POST", "/v1/tournaments", body)["id"]
    _admin(client, "POST", f"/v1/tournaments/{tid}/registration", {"open": True})
    state = BotState(tmp_path / "state")
    TournamentBots(client, tid, {}, random.Random(1), state).enter_pairs(2)
    _admin(client, "POST", f"/v1/tournaments/{tid}/registration", {"open": False})
    _admin(client, "POST", f"/v1/tournaments/{tid}/start")
    argv = ["bot", "--url", service.url, "--tournament", tid, "--state", str(tmp_path / "state")]
    assert audit_main([*argv, "--admin-token", ADMIN, "--seed", "3"]) == 0
    assert f"tournament {tid}: over" in capsys.readouterr().out
    assert client.call("GET", f"/v1/tournaments/{tid}")["phase"] == "over"
    # without keys it says so and exits 2
    empty = ["bot", "--url", service.url, "--tournament", tid, "--state", str(tmp_path / "none")]
    assert audit_main(empty) == 2


def test_registrations_write_their_own_rows_up_to_the_cap(service: Running) -> None:
    """A registration writes its entrant's row, not the event's document (whose size grew
    with every entrant); the entrants still read in the order the log took them; and an
    event refuses the entrant over its cap with 409 naming the limit."""
    from api.tournament import Tournaments

    client = service.client()
    # two tables (four pairs): the event is not full when the cap of 5 entrants is met
    small = {"name": "Cap", "format": "pairs-duplicate", "tables": 2, "boards_per_round": 1}
    tid = _admin(client, "POST", "/v1/tournaments", small)["id"]
    _admin(client, "POST", f"/v1/tournaments/{tid}/registration", {"open": True})
    t = service.app.extensions["fairplay"].tournaments
    assert isinstance(t, Tournaments)
    conn = service.app.extensions["fairplay"].db.connection()

    def version() -> int:
        row = conn.one("SELECT version FROM api_tournaments WHERE id = ?", (tid,))
        assert row is not None
        return int(row[0])

    before = version()
    bots = TournamentBots(client, tid, {}, random.Random(3))
    t.max_entrants = 5
    bots.enter_pairs(2)
    assert version() == before  # four registrations, the document never written
    doc = client.call("GET", f"/v1/tournaments/{tid}")
    assert [e["player"] for e in doc["entrants"]] == list(bots.entrants)
    rows = conn.all("SELECT player FROM api_tournament_entrants WHERE tournament_id = ?", (tid,))
    assert sorted(r[0] for r in rows) == sorted(bots.entrants)
    with pytest.raises(ApiCallError) as refused:
        bots.enter_pairs(1, prefix="late")  # the fifth is taken, the sixth is one too many
    assert refused.value.status == 409
    assert "the most it accepts (5" in str(refused.value)
    assert refused.value.details["body"]["details"]["limit"] == 5
    assert len(client.call("GET", f"/v1/tournaments/{tid}")["entrants"]) == 5


def test_the_start_of_an_event_of_as_many_entrants_as_accepted_fits_in_the_log() -> None:
    """MAX_ENTRANTS is chosen so that the tournament_start listing every one of them (pairs
    and unpaired, player ids as the service makes them) is admitted by the log."""
    from api.tournament import MAX_ENTRANTS
    from audit.log.events import make_event, sign_event
    from audit.log.keys import generate_signer
    from audit.log.schemas import check_cayenne_event

    ids = [f"p-{n:020x}" for n in range(MAX_ENTRANTS)]
    pairs = [ids[i : i + 2] for i in range(0, 400, 2)]  # the most pairs an event seats
    event = make_event(
        origin="cayenne-fairplay.local/log",
        table="e-" + "f" * 12,
        hand="event",
        seq=5,
        prev="0" * 64,
        actor="server",
        type="tournament_start",
        body={"pairs": pairs, "unpaired": ids[400:]},
    )
    check_cayenne_event(sign_event(event, generate_signer("cayenne-fairplay.local/log")))


def test_a_document_written_before_the_entrant_rows_moves_them_to_rows(
    service: Running,
) -> None:
    """An event in registration whose document holds its entrants (as before migration 7)
    gives them rows at its first read, in the log's order, and takes registrations on."""
    client = service.client()
    small = {"name": "Old", "format": "pairs-duplicate", "tables": 1, "boards_per_round": 1}
    tid = _admin(client, "POST", "/v1/tournaments", small)["id"]
    _admin(client, "POST", f"/v1/tournaments/{tid}/registration", {"open": True})
    bots = TournamentBots(client, tid, {}, random.Random(5))
    bots.enter_pairs(1)
    t = service.app.extensions["fairplay"].tournaments
    conn = service.app.extensions["fairplay"].db.connection()
    doc = t.load(tid)  # the entrants as the document held them before
    old = dict(doc, version=doc["version"] + 1)
    conn.execute(
        "UPDATE api_tournaments SET doc = ?, version = ? WHERE id = ?",
        (json.dumps(old), old["version"], tid),
    )
    conn.execute("DELETE FROM api_tournament_entrants WHERE tournament_id = ?", (tid,))
    first = client.call("GET", f"/v1/tournaments/{tid}")["entrants"]
    assert [e["player"] for e in first] == doc["order"] == list(bots.entrants)
    row = conn.one("SELECT doc FROM api_tournaments WHERE id = ?", (tid,))
    assert row is not None and "entrants" not in json.loads(row[0])
    bots.enter_pairs(1, prefix="new")
    _admin(client, "POST", f"/v1/tournaments/{tid}/registration", {"open": False})
    started = _admin(client, "POST", f"/v1/tournaments/{tid}/start", {})
    assert [p["players"] for p in started["pair_list"]] == [
        list(bots.entrants)[:2],
        list(bots.entrants)[2:],
    ]
