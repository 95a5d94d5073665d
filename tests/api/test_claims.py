"""Claims of the remaining tricks at a live table (real server): the claimer's cards shown
to the three other seats only, the adversaries' signed answers, an accepted claim ending
the hand (its record, report, end and proof), a refused one resuming the play."""

from __future__ import annotations

import json
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from api.client import Identity
from audit.auditor import audit_document
from audit.tournament.signed import derive_record
from tests.js.test_js import ROOT, node

from .conftest import Running
from .helpers import SEATS, Table, error_of, open_table


def _to_playing(t: Table) -> None:
    t.commit_all()
    t.reveal_all()
    h = t.hand()
    t.act(h["waiting_for"][0], "call", {"call": "S"})


def _play_tricks(t: Table, n: int) -> None:
    while True:
        h = t.hand()
        done = sum(1 for x in h["play"]["tricks"] if len(x["cards"]) == 4)
        if done >= n:
            return
        seat = h["waiting_for"][0]
        t.act(seat, "play", {"card": t.cards(seat)["legal_plays"][0]})


@pytest.fixture(scope="module")
def running(tmp_path_factory: pytest.TempPathFactory) -> Any:
    from .conftest import start_service, stop_service

    service = start_service(tmp_path_factory.mktemp("claims"))
    yield service
    stop_service(service)


def _claimer(t: Table) -> str:
    """The seat on lead (any seat may claim; the leader's is the usual one)."""
    return str(t.hand()["play"]["to_act"])


def test_an_accepted_claim_ends_the_hand_and_is_certified_as_such(
    running: Running, tmp_path: Path
) -> None:
    t = open_table(running.client(), running.origin, "claim-ok")
    _to_playing(t)
    _play_tricks(t, 8)
    claimer = _claimer(t)
    held = t.cards(claimer)["held"]
    t.act(claimer, "claim", {"tricks": 3})
    h = t.hand()
    claim = h["play"]["claim"]
    assert claim["claimer"] == claimer and claim["tricks"] == 3 and claim["left"] == 5
    adversaries = claim["waiting_for"]
    assert len(adversaries) == 2 and claimer not in adversaries
    assert sorted(h["waiting_for"]) == sorted(adversaries)
    assert "cards" not in claim  # the public state shows no card
    # the claimer's cards to each other seat; to nobody else
    for seat in ("N", "E", "S", "W"):
        view = t.cards(seat)["claim"]
        assert view["cards"] == (None if seat == claimer else held)
        assert view["to_answer"] == (seat in adversaries)
        assert t.cards(seat)["legal_plays"] == []
    # no card while the claim waits, and the partner does not answer
    partner = next(s for s in "NESW" if s not in adversaries and s != claimer)
    assert error_of(lambda: t.act(partner, "claim_answer", {"accept": True})).status == 422
    to_act = h["play"]["to_act"]
    card = held[0]
    assert error_of(lambda: t.act(to_act, "play", {"card": card})).status == 422

    t.act(adversaries[0], "claim_answer", {"accept": True})
    assert t.hand()["phase"] == "playing"
    t.act(adversaries[1], "claim_answer", {"accept": True})
    h = t.hand()
    assert h["phase"] == "over" and h["play"]["claimed"] == {
        "claimer": claimer,
        "tricks": 3,
        "agreed": adversaries,
    }
    record = t.client.call("GET", f"/v1/tables/{t.id}/hands/1/record")
    hand = record["hands"][0]
    assert hand["claim"] == {"claimer": claimer, "tricks": 3, "agreed": adversaries}
    assert len(hand["tricks"]) == 8 and "gathered" not in hand
    report = t.client.call("GET", f"/v1/tables/{t.id}/hands/1/report")["report"]
    assert report["hands"][0]["claim"] == hand["claim"]
    won = h["play"]["tricks_won"]
    assert won["NS"] + won["EW"] == 13 and report["hands"][0]["tricks"] == won
    # the end's tricks are the claim's; the record is what the players signed
    events = [
        e["event"] for e in t.client.call("GET", f"/v1/tables/{t.id}/hands/1/events")["events"]
    ]
    kinds = [e["type"] for e in events]
    assert kinds[-5:] == ["claim", "claim_answer", "claim_answer", "server_reveal", "end"]
    assert events[-1]["body"]["tricks"] == won
    chain = [e for e in events if e["type"] != "chat"]
    derived = derive_record(chain, name=record["event"], start=record["start"])
    assert derived == record
    assert audit_document(record)["verdict"] == "clean"
    # the next hand opened
    assert t.hand(2)["phase"] == "committing"
    # the hand's page and its report say how it ended
    status, _, page = t.client.raw("GET", f"/tables/{t.id}/hands/1")
    assert status == 200 and f"Ended by a claim: {claimer}'s side took 3 of the 5" in page.decode()
    status, _, page = t.client.raw("GET", f"/reports/{h['report_id']}")
    assert status == 200 and "Ended by a claim" in page.decode()
    # the hand's proof bundle and record verify offline, in Python and in the browser
    bundle = t.client.call_when_ready("GET", f"/v1/tables/{t.id}/hands/1/proof")
    vkey = t.client.call("GET", "/v1/log/key").strip()
    (tmp_path / "bundle.json").write_text(json.dumps(bundle))
    (tmp_path / "record.json").write_text(json.dumps(record))
    (tmp_path / "key.txt").write_text(vkey)
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "audit.cli",
            "verify",
            str(tmp_path / "bundle.json"),
            "--key",
            vkey,
            "--record",
            str(tmp_path / "record.json"),
        ],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    done = subprocess.run(
        [
            node(),
            "tests/js/verify_hand.mjs",
            str(tmp_path / "bundle.json"),
            str(tmp_path / "key.txt"),
            "--record",
            str(tmp_path / "record.json"),
        ],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )
    verdict = json.loads(done.stdout)
    assert verdict["ok"], json.dumps(verdict["checks"], indent=1)
    tricks = next(c for c in verdict["checks"] if c["check"] == "tricks")
    assert f"{claimer}'s claim of 3" in tricks["detail"], tricks


def test_a_refused_claim_resumes_the_play(running: Running) -> None:
    t = open_table(running.client(), running.origin, "claim-no")
    _to_playing(t)
    _play_tricks(t, 4)
    claimer = _claimer(t)
    t.act(claimer, "claim", {"tricks": 9})
    adversaries = t.hand()["play"]["claim"]["waiting_for"]
    t.act(adversaries[1], "claim_answer", {"accept": False})
    h = t.hand()
    assert h["play"]["claim"] is None and h["waiting_for"] == [claimer]
    assert t.cards(adversaries[0])["claim"] is None  # the cards are no longer shown
    # the same seat may not claim again before a trick is played
    assert not t.cards(claimer)["may_claim"]
    assert error_of(lambda: t.act(claimer, "claim", {"tricks": 8})).status == 422
    _play_tricks(t, 13)
    h = t.hand()
    assert h["phase"] == "over"
    record = t.client.call("GET", f"/v1/tables/{t.id}/hands/1/record")
    assert "claim" not in record["hands"][0] and len(record["hands"][0]["tricks"]) == 13


def test_a_bad_claim_is_refused_with_its_field(running: Running) -> None:
    t = open_table(running.client(), running.origin, "claim-bad")
    _to_playing(t)
    seat = _claimer(t)
    for body, path in (
        ({"tricks": 14}, "event.body.tricks"),
        ({"tricks": "3"}, "event.body.tricks"),
    ):
        exc = error_of(lambda body=body: t.act(seat, "claim", body))
        assert exc.status == 400 and path in exc.message, exc.message
    exc = error_of(lambda: t.act(seat, "claim_answer", {"accept": True}))
    assert exc.status == 422  # no claim to answer


def test_a_claim_refused_at_an_events_table_is_a_finding_for_the_director(
    running: Running,
) -> None:
    """Bots claim every trick before the first lead; the adversaries' bots refuse (it is
    not sure), the play goes on, and the event's findings list each refusal with its
    table and board."""
    import random

    from api.tournament_bot import TournamentBots

    c = running.client()
    spec = {"name": "claims ev", "format": "pairs-duplicate", "tables": 1, "boards_per_round": 2}
    beacon = {"source": "b", "round": 1, "randomness": "cd" * 32}
    bots = TournamentBots.open(c, spec, 2, random.Random(5), beacon)
    bots.concede_after, bots.claim_all = 0, True
    assert bots.run(timeout=120)["phase"] == "over"
    got = c.call("GET", f"/v1/tournaments/{bots.tid}/findings", headers=c.admin())
    refused = [f for f in got["findings"] if f["code"] == "CLAIM_REFUSED"]
    assert len(refused) == 2, got["findings"]
    table_id = c.call("GET", f"/v1/tournaments/{bots.tid}")["rounds_played"][0]["tables"][0]["id"]
    assert {f["board"] for f in refused} == {1, 2}
    for f in refused:
        assert f["severity"] == "warning" and f["table_id"] == table_id
        assert f["tables"] == [{"round": 1, "table": "1", "table_id": table_id}]
        assert f["evidence"]["tricks"] == 13 or f["evidence"]["tricks"] == 0
        assert "refused by" in f["message"] and "the play went on" in f["message"]
    # every board was played out: thirteen tricks, no claim in its record
    records = c.call("GET", f"/v1/tournaments/{bots.tid}/records")["records"]
    hands = [h for r in records for h in r["hands"]]
    assert hands and all(len(h["tricks"]) == 13 and "claim" not in h for h in hands)


def _events(service: Running, t: Table) -> list[tuple[str, str, str]]:
    """The hand's logged events: (type, actor's seat or "server", the seat named in the body)."""
    seat_of = {p.id: s for s, p in t.players.items()}
    out = []
    for item in service.app.extensions["fairplay"].hand_log.hand_events(t.id, 1):
        ev = item["event"]
        actor = seat_of.get(ev["actor"], "server")
        out.append((ev["type"], actor, str(ev["body"].get("seat", ""))))
    return out


def _until(check: Callable[[], bool], seconds: float = 10.0) -> None:
    end = time.monotonic() + seconds
    while not check():
        assert time.monotonic() < end, "the clock's runner did not act in time"
        time.sleep(0.05)


def test_a_claim_stops_the_clock_to_act_and_runs_the_answerers_clocks(
    make_service: Callable[..., Running],
) -> None:
    """While a claim waits, the seat to act's clock stops (the claim cannot spend a seat's
    time) and the clocks of the adversaries who are to answer run (nobody can hold the
    table by not answering): a refusal starts the seat to act's clock again where it
    stopped; an adversary silent past the limit is expired and the house answers for him."""
    now = [time.time()]
    service = make_service(clock=lambda: now[0], clock_tick=0.05)
    c = service.client()
    players = {s: Identity.generate(f"clocked-claim-{s}") for s in SEATS}
    for s, ident in players.items():
        c.register(ident, f"clocked-claim-{s}")
    seats = {s: i.id for s, i in players.items()}
    made = c.call("POST", "/v1/tables", {"seats": seats, "clock": {"seconds": 60}}, c.admin())
    t = Table(c, service.origin, made["id"], players)
    _to_playing(t)
    _play_tricks(t, 4)
    leader = _claimer(t)
    now[0] += 5  # the leader thinks five seconds, then claims
    t.act(leader, "claim", {"tricks": 9})
    first, second = t.hand()["play"]["claim"]["waiting_for"]
    now[0] += 20  # the adversaries take twenty seconds to answer
    clock = t.hand()["clock"]
    assert clock["running"] is None and sorted(clock["answering"]) == sorted([first, second])
    assert clock["remaining_ms"][leader] == 55_000  # stopped at the claim
    assert clock["remaining_ms"][first] == clock["remaining_ms"][second] == 40_000
    t.act(first, "claim_answer", {"accept": False})
    clock = t.hand()["clock"]
    assert clock["running"] == leader and clock["answering"] == []
    assert clock["remaining_ms"][leader] == 55_000  # runs again from where it stopped
    assert clock["remaining_ms"][first] == 40_000  # charged for its answer
    assert clock["remaining_ms"][second] == 60_000  # never had to answer
    time.sleep(0.3)  # several looks of the runner: nobody is warned
    assert not [e for e in _events(service, t) if e[0].startswith("clock_")]

    # A claim nobody answers: both adversaries' clocks run out and the house answers.
    _play_tricks(t, 5)
    leader = _claimer(t)
    left = t.hand()["clock"]["remaining_ms"][leader]
    t.act(leader, "claim", {"tricks": 8})
    silent = set(t.hand()["play"]["claim"]["waiting_for"])
    now[0] += 61
    _until(lambda: t.hand()["play"]["claim"] is None)
    events = _events(service, t)
    expired = [e[2] for e in events if e[0] == "clock_expired"]
    answered = [e[2] for e in events if e[0] == "claim_answer" and e[1] == "server"]
    assert answered and set(answered) <= set(expired) <= silent
    assert t.hand()["clock"]["remaining_ms"][leader] == left  # not spent by the claim
    # played out (the house plays the expired seats), the signed chain gives the record
    while (h := t.hand())["phase"] != "over":
        if h["waiting_for"]:
            seat = h["waiting_for"][0]
            t.act(seat, "play", {"card": t.cards(seat)["legal_plays"][0]})
        else:
            time.sleep(0.05)
    record = t.client.call("GET", f"/v1/tables/{t.id}/hands/1/record")
    events = [
        e["event"] for e in t.client.call("GET", f"/v1/tables/{t.id}/hands/1/events")["events"]
    ]
    assert derive_record(events, name=record["event"], start=record["start"]) == record
