"""Directors: the operator grants a key; every ruling is the director's signed request,
logged under his id; the certificate and ``fairplay tournament verify`` name who took each
ruling, and refuse a ruling in the name of a key no grant named before it (the service
refuses it first)."""

from __future__ import annotations

import json
import random
import re
import secrets
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from api.client import ApiCallError, Client, Identity
from api.signing import sign_read, sign_write
from api.tournament_bot import Entrant, TournamentBots
from audit.cli import main as audit_main
from audit.log.keys import Signer
from audit.tournament.directors import director_id
from audit.tournament.eventaudit import audit_records, locate
from tests.js.test_verify_certificate import verify_in_node

from .conftest import Running
from .forge import Forger
from .helpers import tournament_verify
from .test_tournaments import BEACON, _play_table

EVENT = {
    "name": "Directed pairs",
    "format": "pairs-duplicate",
    "tables": 3,
    "boards_per_round": 1,
    "rounds": 3,
}


def rule(client: Client, director: Identity, path: str, body: Any) -> Any:
    """A ruling signed by ``director`` (a signed write with a fresh nonce)."""
    auth = sign_write(
        director.signer,
        director_id(director.signer.verifier()),
        "POST",
        path,
        int(time.time()),
        secrets.token_hex(16),
        json.dumps(body).encode(),
    )
    return client.call("POST", path, body, {"Authorization": auth})


def read_as(who: Identity, path: str) -> str:
    """A director's signed read of ``path``."""
    return sign_read(who.signer, director_id(who.signer.verifier()), "GET", path, int(time.time()))


def refused(call: Callable[[], Any]) -> ApiCallError:
    try:
        call()
    except ApiCallError as exc:
        return exc
    raise AssertionError("the call succeeded")


def test_the_operator_grants_a_director_by_http_and_by_the_command(
    make_service: Callable[..., Running], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    service = make_service()
    client = service.client()
    one, two = Identity.generate("tom"), Identity.generate("ann")
    assert (
        refused(lambda: client.call("POST", "/v1/directors", {"public_key": one.public_key})).status
        == 401
    )
    granted = client.call("POST", "/v1/directors", {"public_key": one.public_key}, client.admin())
    assert granted["director"] == director_id(one.signer.verifier())
    status, _, _ = client.raw(
        "POST", "/v1/directors", {"public_key": one.public_key}, client.admin()
    )
    assert status == 200  # granted already: nothing new is logged
    bad = refused(
        lambda: client.call("POST", "/v1/directors", {"public_key": "x+1+2"}, client.admin())
    )
    assert bad.status == 400 and bad.details["body"]["details"]["path"] == "public_key"
    listed = client.call("GET", "/v1/directors")["directors"]
    assert [d["director"] for d in listed] == [granted["director"]]
    log = service.app.extensions["fairplay"].hand_log.log
    grants = log.hand_events("directors", "grants")
    assert [e["event"]["type"] for e in grants] == ["director_grant"]  # once

    # the command, on a service's data folder (its database and its log key)
    data = tmp_path / "cli-data"
    capsys.readouterr()
    assert audit_main(["director", "add", two.public_key, "--data-dir", str(data)]) == 0
    out = capsys.readouterr().out
    assert director_id(two.signer.verifier()) in out
    assert audit_main(["director", "add", "not a key", "--data-dir", str(data)]) == 2
    assert "KEY" in capsys.readouterr().err


def test_a_director_runs_an_event_and_the_certificate_names_him(
    backend: str,
    make_service: Callable[..., Running],
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    service = make_service(backend)
    client = service.client()
    director = Identity.generate("tom")
    stranger = Identity.generate("eve")
    who = director_id(director.signer.verifier())
    client.call("POST", "/v1/directors", {"public_key": director.public_key}, client.admin())

    # no signature, a key no grant named, a stale signature: refused, nothing logged
    assert refused(lambda: client.call("POST", "/v1/tournaments", EVENT)).status == 401
    assert refused(lambda: rule(client, stranger, "/v1/tournaments", EVENT)).status == 403
    doc = rule(client, director, "/v1/tournaments", EVENT)
    tid = doc["id"]
    base = f"/v1/tournaments/{tid}"
    rule(client, director, f"{base}/registration", {"open": True})
    rule(client, director, f"{base}/beacon", BEACON)
    bots = TournamentBots(client, tid, {}, random.Random(7), None)
    bots.enter_pairs(1, prefix="gone")  # a pair the director refuses (one of them)
    gone = next(p for p in bots.entrants if bots.entrants[p].ident.signer.name == "gone0a")
    rule(client, director, f"{base}/actions/remove", {"entrant": gone, "reason": "no card"})
    bots.enter_pairs(6)
    rule(client, director, f"{base}/registration", {"open": False})
    rule(client, director, f"{base}/start", {})
    doc = client.call("GET", base)
    bots.reveal_all(doc)
    doc = rule(client, director, f"{base}/rounds/next", {"round": 1})  # dealt already
    assert doc["phase"] == "playing" and doc["round"] == 1
    sub = Identity.generate("sub")
    client.register(sub, "substitute")
    out = doc["pair_list"][3]["players"][0]
    actions = [
        ("substitute", {"pair": 4, "out": out, "in": sub.id, "reason": "taken ill"}),
        ("withdraw", {"pair": 2, "reason": "left the club"}),
        (
            "adjust",
            {"round": 1, "table": 1, "board": 1, "ns": "average-plus", "ew": "average-minus"}
            | {"reason": "slow play by EW"},
        ),
    ]
    for action, body in actions:
        rule(client, director, f"{base}/actions/{action}", body)
    tables = {t["table"]: t for t in doc["rounds_played"][0]["tables"]}

    # a director watches a private table: its public state, never a card not yet played
    path = f"/v1/tables/{tables[1]['id']}/hands/1"
    assert client.raw("GET", path)[0] == 403
    status, _, _ = client.raw("GET", path, headers={"Authorization": read_as(stranger, path)})
    assert status in (401, 403)
    status, _, payload = client.raw("GET", path, headers={"Authorization": read_as(director, path)})
    assert status == 200
    hand = json.loads(payload)
    shown = set(re.findall(r'"([2-9TJQKA][SHDC])"', payload.decode()))
    played = {c for t in hand["play"]["tricks"] for c in t["cards"]} | {hand["play"]["cayenne"]}
    assert shown <= played, shown - played
    _play_table(bots, tables[2])
    rule(client, director, f"{base}/actions/void_board", {"board": 2, "reason": "fouled"})
    _play_table(bots, tables[1])
    rule(client, director, f"{base}/rounds/end", {"round": 1, "reason": "out of time"})
    bots.entrants[sub.id] = Entrant(sub, "", b"\0" * 32)
    final = bots.run(timeout=300)
    assert final["phase"] == "over"
    assert {a["action"]: a["by"] for a in final["actions"]} == {
        "remove": who,
        "substitute": who,
        "withdraw": who,
        "adjust": who,
        "void_board": who,
    }

    # the findings to rule on: a director's signed read (or the operator's), none here
    findings = f"{base}/findings"
    assert client.raw("GET", findings)[0] == 401
    status, _, payload = client.raw(
        "GET", findings, headers={"Authorization": read_as(director, findings)}
    )
    assert status == 200 and json.loads(payload)["verdict"] == "clean", payload
    assert client.call("GET", findings, headers=client.admin())["findings"] == []
    # a fouled board (one table's deal of a board changed) is a finding linked to the
    # tables of both versions and to the board
    records = client.call("GET", f"{base}/records")["records"]
    plays: dict[int, list[tuple[int, int]]] = {}
    for n, rec in enumerate(records):
        for h, hand in enumerate(rec["hands"]):
            plays.setdefault(hand["board"], []).append((n, h))
    board, where = next((b, w) for b, w in sorted(plays.items()) if len(w) >= 2)
    n, h = where[-1]
    deal = records[n]["hands"][h]["deal"]
    deal["N"][0], deal["E"][0] = deal["E"][0], deal["N"][0]
    located = locate(audit_records(records, 0.01)["findings"], final["rounds_played"])
    fouled = next(f for f in located if f["code"] == "FOULED_BOARD")
    assert fouled["board"] == board
    sitting = {
        (r["round"], str(t["table"])): t["id"] for r in final["rounds_played"] for t in r["tables"]
    }
    changed = sitting[(records[n]["round"], records[n]["table"])]
    assert changed in {t["table_id"] for t in fouled["tables"]}, (changed, fouled["tables"])
    assert len(fouled["tables"]) == len(where)

    bundle = client.call_when_ready("GET", f"{base}/certificate/bundle")
    cert = bundle["certificate"]
    assert [d["director"] for d in cert["directors"]] == [who]
    assert cert["directors"][0]["key"] == director.public_key
    rulings = [(r["type"], r["by"], r.get("reason")) for r in cert["rulings"]]
    assert rulings == [
        ("tournament_create", who, None),
        ("tournament_registration", who, None),
        ("tournament_beacon", who, None),
        ("tournament_remove", who, "no card"),
        ("tournament_registration", who, None),
        ("tournament_start", who, None),
        ("tournament_substitute", who, "taken ill"),
        ("tournament_withdraw", who, "left the club"),
        ("tournament_adjust", who, "slow play by EW"),
        ("tournament_void_board", who, "fouled"),
        ("tournament_round_end", who, "out of time"),
    ]
    key = service.app.extensions["fairplay"].hand_log.signer.verifier_key()
    code, text = tournament_verify(bundle, key, tmp_path, capsys)
    assert code == 0, text
    assert f"tournament_round_end by {who}: out of time" in text
    assert f"tournament_create by {who}" in text

    # the operator, who holds the log key, puts a ruling in another key's name: refused
    signer: Signer = service.app.extensions["fairplay"].hand_log.signer

    def forged_by(director_key: Identity, reason: str | None = None) -> dict[str, Any]:
        forger = Forger(bundle, signer)
        void = forger.server_event(tid, "event", "tournament_void_board")
        path = f"{base}/actions/void_board"
        body = json.dumps({"board": 2, "reason": reason or "fouled"})
        ts, nonce = int(time.time()), secrets.token_hex(16)
        auth = sign_write(director_key.signer, "x", "POST", path, ts, nonce, body.encode())
        sig = auth.rpartition("sig=")[2]
        void["body"] = dict(
            void["body"],
            by={
                "director": director_id(director_key.signer.verifier()),
                "path": path,
                "ts": ts,
                "nonce": nonce,
                "body": body,
                "signature": sig,
            },
        )
        if reason is not None:  # the request says one thing, the ruling another
            void["body"]["by"]["director"] = who
        forger.mark(void)
        return forger.finish(recompute=False)  # certify refuses it: the forger writes one

    by_stranger, misquoted = forged_by(stranger), forged_by(director, "a board of mine")
    code, text = tournament_verify(by_stranger, key, tmp_path, capsys)
    assert code == 1 and "RULING_NOT_GRANTED" in text and "not granted" in text, text
    code, text = tournament_verify(misquoted, key, tmp_path, capsys)
    assert code == 1 and "RULING_NOT_GRANTED" in text and "reason" in text, text

    # the browser's verifier (api/static/js/certificate.js) says the same
    folder = tmp_path / "js"
    folder.mkdir()
    genuine, stranger_js, misquoted_js = verify_in_node(
        folder, key, [bundle, by_stranger, misquoted]
    )
    # every check passes on the genuine bundle: the rulings with the event, and the
    # board scores, matchpoints and standings of an event with every kind of ruling (a
    # withdrawn pair's unseated tables scored as the Python scores them)
    failed = [c for c in genuine["checks"] if c["ok"] is not True]
    assert [c["check"] for c in failed] == ["audit"], failed  # the audit: the command's
    assert genuine["ok"] is True
    for result, words in ((stranger_js, "not granted"), (misquoted_js, "reason")):
        failed = [c for c in result["checks"] if c["ok"] is False]
        assert failed[0]["check"] == "the event", failed
        assert failed[0]["code"] == "RULING_NOT_GRANTED" and words in failed[0]["detail"]
