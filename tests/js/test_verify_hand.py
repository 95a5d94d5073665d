"""The browser's verifyHand (api/static/js/hand.js) on hands played on the real service.

A hand is played by the bots on a running service (SQLite and PostgreSQL); its proof
bundle, the log key and the record are fetched over HTTP and handed to Node, which runs
the page's own module. The genuine hand passes every check; a changed card, a changed
signature byte and a changed seed each fail, naming the check that catches them; a
server that rewrites its own reveal, re-signs it and re-signs a checkpoint passes the
signatures but fails the commitments, and is caught as a fork by a browser that saw the
genuine checkpoint.
"""

from __future__ import annotations

import base64
import copy
import hashlib
import json
import random
import subprocess
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from api.bot import TableBots
from api.client import Client
from audit.log import merkle
from audit.log.checkpoint import Checkpoint
from audit.log.checkpoint import parse as parse_checkpoint
from audit.log.events import canonical_json, event_hash, sign_event
from audit.log.keys import load_signer
from audit.log.note import parse as parse_note
from tests.api.conftest import Running, backend_of, start_service, stop_service
from tests.api.forge import forge_hand_bundle
from tests.js.test_js import ROOT, node

# one worker plays each backend's hand once for every test of the module (make test's xdist)
pytestmark = pytest.mark.xdist_group("verify_hand")

Verdict = dict[str, Any]


def run_verify(tmp_path: Path, bundle: dict[str, Any], vkey: str, *extra: str) -> Verdict:
    (tmp_path / "bundle.json").write_text(json.dumps(bundle))
    (tmp_path / "key.txt").write_text(vkey)
    done = subprocess.run(
        [
            node(),
            "tests/js/verify_hand.mjs",
            str(tmp_path / "bundle.json"),
            str(tmp_path / "key.txt"),
            *extra,
        ],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode in (0, 1), done.stderr
    verdict: Verdict = json.loads(done.stdout)
    assert verdict["ok"] == (done.returncode == 0)
    return verdict


def by_check(verdict: Verdict) -> dict[str, dict[str, Any]]:
    return {c["check"]: c for c in verdict["checks"]}


def failed(verdict: Verdict) -> set[str]:
    return {c["check"] for c in verdict["checks"] if not c["ok"]}


class Played:
    def __init__(self, service: Running) -> None:
        self.client: Client = service.client()
        self.bots = TableBots.open(self.client, random.Random(11))
        self.bots.play_hand(1)
        t = self.bots.table
        self.vkey = str(self.client.call("GET", "/v1/log/key")).strip()
        self.bundle: dict[str, Any] = self.client.call("GET", f"/v1/tables/{t}/hands/1/proof")
        self.record: dict[str, Any] = self.client.call("GET", f"/v1/tables/{t}/hands/1/record")

    def item(self, kind: str) -> dict[str, Any]:
        return next(i for i in self.bundle["events"] if i["event"]["type"] == kind)


@pytest.fixture(scope="module", params=["sqlite", "postgresql"])
def played(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[tuple[Running, Played]]:
    """One service of each backend with hand 1 played, shared by the tests that only read
    it (each changes a deep copy of the bundle or the record)."""
    for database in backend_of(request):
        service = start_service(tmp_path_factory.mktemp("verify-hand"), database)
        try:
            yield service, Played(service)
        finally:
            stop_service(service)


@pytest.fixture
def played_alone(make_service: Callable[..., Running], backend: str) -> tuple[Running, Played]:
    """A service of its own with hand 1 played, for a test that plays more."""
    service = make_service(backend)
    return service, Played(service)


def test_a_real_hand_passes_every_check(played: tuple[Running, Played], tmp_path: Path) -> None:
    _, p = played
    record_file = tmp_path / "record.json"
    record_file.write_text(json.dumps(p.record))
    player = p.bots.players["N"]
    key_file = tmp_path / "n.key"
    key_file.write_text(player.public_key)
    verdict = run_verify(
        tmp_path,
        p.bundle,
        p.vkey,
        "--record",
        str(record_file),
        "--player",
        player.id,
        "--player-key",
        str(key_file),
    )
    checks = by_check(verdict)
    assert verdict["ok"], json.dumps(verdict["checks"], indent=1)
    assert list(checks) == [
        "log key",
        "bundle",
        "checkpoint",
        "signatures",
        "signers",
        "chain",
        "inclusion",
        "later checkpoint",
        "last checkpoint",
        "finished",
        "commitments",
        "deal",
        "tricks",
        "cayenne card",
        "record",
    ]
    hand = p.record["hands"][0]
    assert verdict["derived"]["cayenne"] == hand["cayenne"]
    assert verdict["derived"]["dealNumber"] == hand["shuffle"]["deal_number"]
    assert "as the record the server signed says" in checks["cayenne card"]["detail"]
    assert "all 52 cards played" in checks["deal"]["detail"]
    assert verdict["checkpoint"] == (p.bundle.get("later") or p.bundle)["checkpoint"]
    # Someone else's key for N's events is refused.
    other = p.bots.players["E"]
    key_file.write_text(other.public_key)
    wrong = run_verify(
        tmp_path, p.bundle, p.vkey, "--player", player.id, "--player-key", str(key_file)
    )
    assert failed(wrong) == {"signers"}
    # A record that is not the one the server signed is refused.
    forged_record = copy.deepcopy(p.record)
    forged_record["hands"][0]["cayenne"] = "2S" if hand["cayenne"] != "2S" else "3S"
    record_file.write_text(json.dumps(forged_record))
    assert failed(run_verify(tmp_path, p.bundle, p.vkey, "--record", str(record_file))) == {
        "cayenne card"
    }
    assert "are the players' signed events" in checks["record"]["detail"]


def _contract(rec: dict[str, Any]) -> str:
    call = rec["hands"][0]["calls"][-1]
    call["call"] = "C" if call["call"] != "C" else "S"
    return f"record.hands[0].calls[{len(rec['hands'][0]['calls']) - 1}].call"


def _north_south(rec: dict[str, Any]) -> str:
    p = rec["players"]
    p["N"], p["S"] = p["S"], p["N"]
    return "record.players.N"


def _cards(rec: dict[str, Any]) -> str:
    tricks = rec["hands"][0]["tricks"]
    tricks[0]["cards"][0], tricks[1]["cards"][0] = tricks[1]["cards"][0], tricks[0]["cards"][0]
    return "record.hands[0].tricks[0].cards[0]"


def _ace_high(rec: dict[str, Any]) -> str:
    trick = rec["hands"][0]["tricks"][0]
    trick["ace_high"] = [trick["cards"][0]]
    return "record.hands[0].tricks[0].ace_high"


@pytest.mark.parametrize("change", [_contract, _north_south, _cards, _ace_high])
def test_a_record_the_operator_re_signed_is_not_what_the_players_signed(
    played: tuple[Running, Played], tmp_path: Path, change: Callable[[dict[str, Any]], str]
) -> None:
    """The operator changes the record and re-signs the server's end (its hash) and the
    checkpoint with the log key: the browser derives the record from the players'
    signed events and names the first field that differs."""
    service, p = played
    signer = service.app.extensions["fairplay"].hand_log.signer
    record = copy.deepcopy(p.record)
    path = change(record)
    end = p.bundle["events"][-1]["event"]["body"]
    body = dict(end, record_sha256=hashlib.sha256(canonical_json(record)).hexdigest())
    bundle = forge_hand_bundle(p.bundle, signer, body)
    (tmp_path / "record.json").write_text(json.dumps(record))
    verdict = run_verify(tmp_path, bundle, p.vkey, "--record", str(tmp_path / "record.json"))
    assert failed(verdict) == {"record"}, json.dumps(verdict["checks"], indent=1)
    assert by_check(verdict)["record"]["detail"].startswith(path), verdict


def test_a_changed_card_fails_the_signature_and_the_deal(
    played: tuple[Running, Played], tmp_path: Path
) -> None:
    _, p = played
    bundle = copy.deepcopy(p.bundle)
    items = [i for i in bundle["events"] if i["event"]["type"] == "play"]
    first = items[0]["event"]
    n = bundle["events"].index(items[0])
    # A card that another seat played: it was not dealt to this player.
    other = next(i["event"] for i in items if i["event"]["actor"] != first["actor"])
    first["body"]["card"] = other["body"]["card"]
    verdict = run_verify(tmp_path, bundle, p.vkey)
    checks = by_check(verdict)
    assert {"signatures", "deal"} <= failed(verdict)
    assert f"bundle.events[{n}]" in checks["signatures"]["detail"]
    assert other["body"]["card"] in checks["deal"]["detail"]
    assert checks["checkpoint"]["ok"] and checks["commitments"]["ok"]


def test_a_changed_signature_byte_fails_the_signatures(
    played: tuple[Running, Played], tmp_path: Path
) -> None:
    _, p = played
    bundle = copy.deepcopy(p.bundle)
    n = 5
    ev = bundle["events"][n]["event"]
    sig = bytearray(base64.b64decode(ev["signature"]))
    sig[10] ^= 0x01
    ev["signature"] = base64.b64encode(bytes(sig)).decode()
    verdict = run_verify(tmp_path, bundle, p.vkey)
    checks = by_check(verdict)
    assert "signatures" in failed(verdict)
    assert checks["signatures"]["detail"].startswith(f"bundle.events[{n}]")
    assert "does not verify" in checks["signatures"]["detail"]
    # What does not depend on the signature still holds.
    for name in ("checkpoint", "commitments", "deal", "tricks", "finished"):
        assert checks[name]["ok"], checks[name]


def test_a_changed_seed_fails_the_commitments(
    played: tuple[Running, Played], tmp_path: Path
) -> None:
    _, p = played
    bundle = copy.deepcopy(p.bundle)
    reveal = next(i["event"] for i in bundle["events"] if i["event"]["type"] == "reveal")
    seat = next(
        s
        for s, pl in bundle["events"][0]["event"]["body"]["seats"].items()
        if pl == reveal["actor"]
    )
    seed = bytearray(bytes.fromhex(reveal["body"]["seed"]))
    seed[0] ^= 0xFF
    reveal["body"]["seed"] = seed.hex()
    verdict = run_verify(tmp_path, bundle, p.vkey)
    checks = by_check(verdict)
    assert {"signatures", "commitments"} <= failed(verdict)
    assert checks["commitments"]["detail"].startswith(
        f"seats.{seat}.seed: {seat}'s seed does not open"
    )
    assert "not checked" in checks["deal"]["detail"]


def test_a_server_that_rewrites_its_reveal_is_caught(
    played: tuple[Running, Played], tmp_path: Path
) -> None:
    """The server holds the log key: it re-signs a changed reveal, the end after it and a
    checkpoint over the rewritten log. Every signature, the chain and the inclusion then
    hold; the seeds do not open the commitments, and a browser that saw the genuine
    checkpoint of the same size sees a fork."""
    service, p = played
    signer = load_signer(Path(service.app.extensions["fairplay"].config.data_dir) / "log-key")
    genuine = p.bundle["checkpoint"]
    size = parse_checkpoint(parse_note(genuine)[0]).size
    log = p.client.call("GET", f"/v1/log/entries?start=0&end={size}")
    events = [e["event"] for e in log["entries"]]
    idx = {i["index"]: i for i in p.bundle["events"]}
    reveal_at = next(n for n, i in idx.items() if i["event"]["type"] == "server_reveal")
    end_at = next(n for n, i in idx.items() if i["event"]["type"] == "end")
    fake = dict(events[reveal_at], body={"seed": "00" * 32})
    fake = sign_event(fake, signer)
    end = sign_event(dict(events[end_at], prev=event_hash(fake)), signer)
    events[reveal_at], events[end_at] = fake, end
    leaves = [canonical_json(e) for e in events]
    forged_cp = Checkpoint(p.bundle["origin"], size, merkle.root_hash(leaves)).sign(signer)
    bundle = dict(p.bundle, checkpoint=forged_cp)
    bundle.pop("later", None)
    bundle["events"] = [
        {
            "index": n,
            "event": events[n],
            "inclusion": [base64.b64encode(h).decode() for h in merkle.inclusion_proof(leaves, n)],
        }
        for n in sorted(idx)
    ]
    verdict = run_verify(tmp_path, bundle, p.vkey)
    checks = by_check(verdict)
    assert failed(verdict) == {"commitments", "deal", "tricks", "cayenne card"}, verdict
    assert checks["commitments"]["detail"].startswith(
        "server.seed: the server's seed does not open"
    )
    (tmp_path / "seen.txt").write_text(genuine)
    seen = run_verify(tmp_path, bundle, p.vkey, "--last", str(tmp_path / "seen.txt"))
    assert "last checkpoint" in failed(seen)
    assert "fork" in by_check(seen)["last checkpoint"]["detail"]


def test_the_last_checkpoint_seen_is_checked_by_a_consistency_proof(
    played_alone: tuple[Running, Played], tmp_path: Path
) -> None:
    _, p = played_alone
    first = p.bundle["checkpoint"]
    first_size = parse_checkpoint(parse_note(first)[0]).size
    p.bots.play_hand(2)
    bundle2 = p.client.call("GET", f"/v1/tables/{p.bots.table}/hands/2/proof")
    newest = (bundle2.get("later") or bundle2)["checkpoint"]
    newest_size = parse_checkpoint(parse_note(newest)[0]).size
    assert newest_size > first_size
    (tmp_path / "seen.txt").write_text(first)
    unproven = run_verify(tmp_path, bundle2, p.vkey, "--last", str(tmp_path / "seen.txt"))
    assert failed(unproven) == {"last checkpoint"}
    assert "needs a consistency proof" in by_check(unproven)["last checkpoint"]["detail"]
    proof = p.client.call("GET", f"/v1/log/proofs/consistency?from={first_size}&to={newest_size}")
    last = tmp_path / "last.json"
    last.write_text(json.dumps({"checkpoint": first, "consistency": proof["proof"]}))
    verdict = run_verify(tmp_path, bundle2, p.vkey, "--last", str(last))
    assert verdict["ok"], json.dumps(verdict["checks"], indent=1)
    assert f"extends the one of size {first_size}" in by_check(verdict)["last checkpoint"]["detail"]
    assert verdict["checkpoint"] == newest
    bad = [base64.b64encode(bytes(32)).decode()] + proof["proof"][1:]
    last.write_text(json.dumps({"checkpoint": first, "consistency": bad}))
    assert failed(run_verify(tmp_path, bundle2, p.vkey, "--last", str(last))) == {"last checkpoint"}
