"""cayenne-tournament-deals/2 on the real HTTP service: the start fixes a reveal deadline
and the drand round after it, reveals are answered with signed receipts and refused from
the deadline on, nobody can deal before the round is out, the boards come from a local
drand chain served over HTTP (tests/drandlocal.py), and the certificate verifies offline
(docs/tournaments.md, "Seeds"; docs/shuffle-protocol.md part II)."""

from __future__ import annotations

import copy
import hashlib
import json
import random
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from api import faults
from api.client import ApiCallError
from api.tournament_bot import TournamentBots, reveal_event
from audit.cli import main as audit_main
from audit.errors import FairplayError
from audit.log.keys import generate_signer
from audit.tournament.certificate import certify
from audit.tournament.receipt import (
    DroppedReveal,
    ReceiptInvalid,
    check_dealt,
    verify_receipt,
)
from shuffle.beacon import verify_round
from shuffle.tournament import VERSION_2, verify_tournament
from tests.drandlocal import LocalDrand

from .conftest import Running
from .helpers import at_once

ONE_TABLE = {
    "name": "Beacon pairs",
    "format": "pairs-duplicate",
    "tables": 1,
    "boards_per_round": 2,
    "rounds": 1,
}


@pytest.fixture
def drand() -> Iterator[tuple[LocalDrand, str]]:
    chain = LocalDrand(0x51DE_2026, int(time.time()) - 1, 1)
    url, server = chain.serve()
    yield chain, url
    server.shutdown()


def _admin(client: Any, method: str, path: str, body: Any = None) -> Any:
    return client.call(method, path, body if body is not None else {}, client.admin())


def _events(client: Any, tid: str) -> list[dict[str, Any]]:
    return [e["event"] for e in client.call("GET", f"/v1/tournaments/{tid}/events")["events"]]


def _wait_until(when: float) -> None:
    while time.time() < when:
        time.sleep(min(0.2, max(0.0, when - time.time())))


def test_bots_play_an_event_dealt_from_the_drand_round_after_the_deadline(
    backend: str,
    make_service: Callable[..., Running],
    drand: tuple[LocalDrand, str],
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    chain, url = drand
    service = make_service(backend, beacon_url=url)
    client = service.client()
    bots = TournamentBots.open(client, ONE_TABLE, 2, random.Random(3), None, reveal_seconds=2)
    assert bots.run(timeout=120)["phase"] == "over"
    tid = bots.tid
    chain_events = _events(client, tid)
    start = next(e["body"] for e in chain_events if e["type"] == "tournament_start")
    deal = next(e for e in chain_events if e["type"] == "tournament_deal")
    # the start names the deadline and the chain's first round after it
    assert start["deals"] == VERSION_2
    assert start["beacon"]["public_key"] == chain.chain.public_key
    assert start["beacon"]["round"] == chain.chain.round_after(start["reveal_deadline"])
    # the deal carries that round, as the chain signed it, logged after the round's time
    assert deal["body"]["beacon"] == chain.round(start["beacon"]["round"]).to_json()
    assert verify_round(chain.chain, chain.round(start["beacon"]["round"]))
    assert sorted(deal["body"]["revealed"]) == sorted(bots.entrants)
    # every entrant holds a receipt, signed by the log key, before the deadline
    key = bots.log_key()
    for pid, e in bots.entrants.items():
        assert e.receipt is not None
        receipt = verify_receipt(e.receipt, key)
        assert (receipt.entrant, receipt.tournament) == (pid, tid)
        assert receipt.received < start["reveal_deadline"] == receipt.deadline
        check_dealt(receipt, start, deal["body"])
    # the event's page says by which rule and round the boards are dealt
    status, _, page = client.raw("GET", f"/tournaments/{tid}")
    assert status == 200
    assert f"drand round <b>{start['beacon']['round']}</b>" in page.decode()
    # the published transcript is version 2 and verifies, and so does the certificate
    transcript = client.call("GET", f"/v1/tournaments/{tid}/transcript")
    assert transcript["protocol"] == VERSION_2
    assert len(verify_tournament(transcript)) == 2
    bundle = bots.certificate_bundle(timeout=120)
    assert bundle["certificate"]["deal_inputs"]["protocol"] == VERSION_2
    path = tmp_path / "bundle.json"
    path.write_text(json.dumps(bundle))
    capsys.readouterr()
    assert audit_main(["tournament", "verify", str(path), "--key", key.text()]) == 0, (
        capsys.readouterr()
    )
    said = capsys.readouterr().out  # the verdict says how the boards were dealt
    assert f"by {VERSION_2} from drand round {start['beacon']['round']}" in said, said
    # the verifier's deals check: a deal logged with another round than the start named,
    # however validly signed, or with none, is refused (the events as an operator with
    # the log key would log them; certify checks the deals, not the signatures)
    records = {(r["table"], r["hand"]): r["record"] for r in bundle["records"]}
    base = [{"index": i["index"], "event": i["event"]} for i in bundle["events"]]

    def certified(events: list[dict[str, Any]]) -> Any:
        return certify(
            origin=bundle["certificate"]["origin"],
            log_key=key.text(),
            checkpoint=bundle["certificate"]["checkpoint"],
            tournament=tid,
            events=events,
            records=records,
        )

    assert certified(base) == bundle["certificate"]
    rnd = start["beacon"]["round"]
    # and the round it names with a signature the chain did not make for it: a flipped
    # byte, or the next round's signature (its randomness recomputed, as a forger would;
    # the browser refuses the same: tests/js/test_verify_certificate_v2.py)
    dealt = next(
        i["event"]["body"]["beacon"] for i in base if i["event"]["type"] == "tournament_deal"
    )
    flipped = bytearray.fromhex(dealt["signature"])
    flipped[17] ^= 0x40

    def signed_with(signature: str) -> dict[str, Any]:
        randomness = hashlib.sha256(bytes.fromhex(signature)).hexdigest()
        return dealt | {"signature": signature, "randomness": randomness}

    for other, code, where in (
        (chain.round(rnd + 1).to_json(), "SHUFFLE_BEACON_INVALID", "beacon.round"),
        (chain.round(rnd - 1).to_json(), "SHUFFLE_BEACON_INVALID", "beacon.round"),
        (None, "SHUFFLE_INCOMPLETE", "beacon.signature"),
        (signed_with(flipped.hex()), "SHUFFLE_BEACON_INVALID", "beacon.signature"),
        (signed_with(chain.round(rnd + 1).signature), "SHUFFLE_BEACON_INVALID", "beacon.signature"),
    ):
        events = copy.deepcopy(base)
        for item in events:
            if item["event"]["type"] == "tournament_deal":
                if other is None:
                    del item["event"]["body"]["beacon"]
                else:
                    item["event"]["body"]["beacon"] = other
        with pytest.raises(FairplayError) as info:
            certified(events)
        assert info.value.code == code
        assert where in str(info.value), str(info.value)


def test_the_deadline_fixes_who_deals_and_a_dropped_reveal_is_proven(
    make_service: Callable[..., Running], drand: tuple[LocalDrand, str], tmp_path: Path
) -> None:
    chain, url = drand
    shared = str(tmp_path / "shared")  # two services (workers) on one database and log
    service = make_service(beacon_url=url, data_dir=shared)
    other = make_service(beacon_url=url, data_dir=shared)
    client = service.client()
    two_tables = ONE_TABLE | {"tables": 2, "boards_per_round": 1}
    bots = TournamentBots.open(client, two_tables, 4, random.Random(5), None, reveal_seconds=3)
    tid = bots.tid
    doc = client.call("GET", f"/v1/tournaments/{tid}")
    deadline = doc["reveal_deadline"]
    rnd = doc["drand"]["round"]
    # a beacon value fixed by hand is refused: the rule names the round
    with pytest.raises(ApiCallError) as refused:
        _admin(client, "POST", f"/v1/tournaments/{tid}/beacon", {"source": "x", "round": 1,
                                                                 "randomness": "00"})  # fmt: skip
    assert refused.value.status == 409
    origin = bots.origin
    players = [p for pair in doc["pair_list"] for p in pair["players"]]
    late = players[-1]
    receipts: dict[str, str] = {}
    for pid in players[:-1]:
        e = bots.entrants[pid]
        registered = client.call("GET", f"/v1/tournaments/{tid}/events?entrant={pid}")
        answer = client.call(
            "POST",
            f"/v1/tournaments/{tid}/reveals",
            reveal_event(origin, tid, e.ident, e.seed, registered["events"][0]["event"]),
        )
        receipts[pid] = answer["receipt"]
    # nobody deals before the round: the director's word is refused, with Retry-After
    with pytest.raises(ApiCallError) as early:
        _admin(client, "POST", f"/v1/tournaments/{tid}/rounds/next", {"round": 1})
    assert (early.value.status, early.value.error_code) == (409, "NOT_READY")
    assert early.value.details["body"]["details"]["round"] == rnd
    # an operator with the database drops one reveal it had receipted
    dropped = players[0]
    service.app.extensions["fairplay"].db.connection().execute(
        "UPDATE api_tournament_entrants SET reveal = NULL WHERE tournament_id = ? AND player = ?",
        (tid, dropped),
    )
    # from the deadline on, a reveal is refused: the set that deals is fixed
    _wait_until(deadline)
    e = bots.entrants[late]
    registered = client.call("GET", f"/v1/tournaments/{tid}/events?entrant={late}")
    with pytest.raises(ApiCallError) as too_late:
        client.call(
            "POST",
            f"/v1/tournaments/{tid}/reveals",
            reveal_event(origin, tid, e.ident, e.seed, registered["events"][0]["event"]),
        )
    assert (too_late.value.status, too_late.value.error_code) == (409, "WRONG_PHASE")
    _wait_until(chain.chain.round_time(rnd) + 0.2)
    # 8 identical requests at once, to either service: one deal
    turn = iter(range(8))
    statuses = at_once(
        8,
        lambda: (
            (service, other)[next(turn) % 2]
            .client()
            .raw("POST", f"/v1/tournaments/{tid}/rounds/next", {"round": 1}, client.admin())[:2]
        ),
    )
    assert 200 in statuses and all(s < 500 for s in statuses), statuses
    after = _admin(client, "POST", f"/v1/tournaments/{tid}/rounds/next", {"round": 1})
    assert after["phase"] in ("playing", "over")
    chain_events = _events(client, tid)
    assert [e["type"] for e in chain_events].count("tournament_deal") == 1
    start = next(e["body"] for e in chain_events if e["type"] == "tournament_start")
    deal = next(e["body"] for e in chain_events if e["type"] == "tournament_deal")
    assert deal["beacon"]["round"] == rnd
    assert late not in deal["revealed"] and dropped not in deal["revealed"]
    assert deal["withdrawn"] == [1, 4]  # the dropped entrant's pair and the late one's
    key = bots.log_key()
    for pid, text in receipts.items():
        receipt = verify_receipt(text, key)
        if pid == dropped:  # the receipt and the logged deal prove the drop
            with pytest.raises(DroppedReveal):
                check_dealt(receipt, start, deal)
        else:
            check_dealt(receipt, start, deal)
    # the same proof offline, from two files and the log key
    chain_file = tmp_path / "chain.json"
    chain_file.write_text(json.dumps(client.call("GET", f"/v1/tournaments/{tid}/events")))
    for pid, text in receipts.items():
        receipt_file = tmp_path / f"{pid}.receipt"
        receipt_file.write_text(text)
        argv = ["tournament", "receipt", str(receipt_file), "--events", str(chain_file)]
        assert audit_main([*argv, "--key", key.text()]) == (1 if pid == dropped else 0)
    forged = json.loads(chain_file.read_text())
    for item in forged["events"]:
        if item["event"]["type"] == "tournament_deal":  # an operator adds the entrant back
            item["event"]["body"]["revealed"].append(dropped)
    chain_file.write_text(json.dumps(forged))
    receipt_file = tmp_path / f"{dropped}.receipt"
    argv = ["tournament", "receipt", str(receipt_file), "--events", str(chain_file)]
    assert audit_main([*argv, "--key", key.text()]) == 2  # not signed: no cover-up
    # a receipt is only the log key's: another key's, or an edited one, is refused
    with pytest.raises(ReceiptInvalid):
        verify_receipt(receipts[players[1]].replace("received", "receivedd"), key)
    with pytest.raises(FairplayError):
        verify_receipt(receipts[players[1]], generate_signer(key.name).verifier())


class _Crash(Exception):
    """The host dies between the deal's log append and its row (in-process)."""


def test_a_crash_after_the_deal_is_logged_is_repaired_from_the_log(
    make_service: Callable[..., Running], drand: tuple[LocalDrand, str], tmp_path: Path
) -> None:
    chain, url = drand
    data = str(tmp_path / "shared")
    first = make_service(beacon_url=url, data_dir=data)
    client = first.client()
    bots = TournamentBots.open(client, ONE_TABLE, 2, random.Random(9), None, reveal_seconds=1)
    tid = bots.tid
    bots.reveal_all(client.call("GET", f"/v1/tournaments/{tid}"))
    doc = client.call("GET", f"/v1/tournaments/{tid}")
    _wait_until(chain.chain.round_time(doc["drand"]["round"]) + 0.2)

    def crash() -> None:
        raise _Crash("killed between the log and the row")

    faults.hold("tournament_deal", crash)
    try:
        with pytest.raises(ApiCallError) as died:
            _admin(client, "POST", f"/v1/tournaments/{tid}/rounds/next", {"round": 1})
        assert died.value.status == 500
    finally:
        faults.hold("tournament_deal", None)
    logged = [e["type"] for e in _events(client, tid)]
    assert logged[-1] == "tournament_deal"
    second = make_service(beacon_url=url, data_dir=data)  # its start-up repair
    again = second.client()
    doc = again.call("GET", f"/v1/tournaments/{tid}")
    assert doc["phase"] == "playing" and doc["drand"]["signature"]
    bots.client = again
    assert bots.run(timeout=120)["phase"] == "over"
    assert [e["type"] for e in _events(again, tid)].count("tournament_deal") == 1
    transcript = again.call("GET", f"/v1/tournaments/{tid}/transcript")
    assert transcript["beacon"]["round"] == doc["drand"]["round"]
    assert len(verify_tournament(transcript)) == 2
