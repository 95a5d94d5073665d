"""Witnesses end to end: real ``fairplay witness`` processes follow a real HTTP service.

Two services share one log key and one origin but keep two databases: to the world they
are one log showing two histories (a split view). Two witnesses cosign the first
service's checkpoints as it grows; the service stores their cosignatures and serves them
on its checkpoints and bundles; ``fairplay verify`` with a 2-of-2 witness policy accepts
the bundle and, with a third witness required, refuses it naming that witness. Pointed at
the second service, a witness refuses to cosign, exits 1 and writes the evidence, which
verifies with the log key alone; a client that saw both views finds the same; the second
service's checkpoint meets no policy; and the browser's JS, given both, agrees (see
tests/js/witness_split.mjs).
"""

from __future__ import annotations

import json
import random
import subprocess
import sys
import urllib.error
import urllib.request
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from api.bot import TableBots
from audit.cli.witness import HttpLog
from audit.log.cosignature import WitnessPolicy, WitnessPolicyError, verify_witnessed_checkpoint
from audit.log.keys import generate_signer, save_signer
from audit.log.note import sign as sign_note
from audit.log.witness import SplitViewError, compare_views, verify_split_view_evidence
from tests.api.conftest import Running
from tests.js.test_js import node

ROOT = Path(__file__).resolve().parents[2]
ORIGIN = "fairplay.test/split"


def fairplay(*args: str, timeout: float = 120) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "audit.cli", *args],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=timeout,
    )


def post(url: str, body: bytes) -> tuple[int, dict[str, Any]]:
    req = urllib.request.Request(url + "/v1/log/cosignatures", data=body, method="POST")
    try:
        with urllib.request.urlopen(req, timeout=10) as resp:
            return resp.status, json.loads(resp.read())
    except urllib.error.HTTPError as exc:
        return exc.code, json.loads(exc.read())


def get_text(url: str) -> str:
    with urllib.request.urlopen(url, timeout=10) as resp:
        return str(resp.read().decode())


class Witnesses:
    """Two witness key files made by ``fairplay witness --new-key``, and a third key."""

    def __init__(self, tmp: Path) -> None:
        self.tmp = tmp
        self.vkeys: list[str] = []
        for n in (1, 2, 3):
            done = fairplay("witness", "--key", str(tmp / f"w{n}.key"), "--new-key", f"w{n}.test")
            assert done.returncode == 0, done.stderr
            self.vkeys.append(done.stdout.strip())

    def once(self, n: int, url: str) -> subprocess.CompletedProcess[str]:
        key = str(self.tmp / f"w{n}.key")
        return fairplay(
            "witness", "--log", url, "--key", key, "--once",
            "--evidence", str(self.tmp / f"evidence-w{n}.json"),
        )  # fmt: skip


def test_witnesses_cosign_one_view_and_refuse_the_other(
    make_service: Callable[..., Running], tmp_path: Path
) -> None:
    w = Witnesses(tmp_path)
    key_file = tmp_path / "log-key"
    save_signer(generate_signer(ORIGIN), key_file)
    shared = {"log_key_file": str(key_file), "log_origin": ORIGIN, "witness_keys": w.vkeys[:2]}
    a = make_service(**shared)
    b = make_service(**shared)
    vkey = get_text(a.url + "/v1/log/key").strip()
    assert get_text(b.url + "/v1/log/key").strip() == vkey

    bots = TableBots.open(a.client(), random.Random(1))
    bots.play_hand(1)
    for n in (1, 2):
        done = w.once(n, a.url)
        assert done.returncode == 0, done.stderr
        assert "cosigned size" in done.stdout
    bots.play_hand(2)  # the log grows: the witnesses check the consistency proof
    for n in (1, 2):
        done = w.once(n, a.url)  # a new process: the state file carries on
        assert done.returncode == 0 and "cosigned size" in done.stdout, done.stderr
    seen_a = get_text(a.url + "/v1/log/checkpoint")
    both = WitnessPolicy.of(w.vkeys[:2], 2)
    cp_a = verify_witnessed_checkpoint(seen_a, vkey, both, origin=ORIGIN)
    assert get_text(a.url + "/v1/log/checkpoint?witnessed=2") == seen_a

    # the bundle of hand 1 carries a checkpoint the two witnesses cosigned
    bundle = a.client().call("GET", f"/v1/tables/{bots.table}/hands/1/proof")
    (tmp_path / "bundle.json").write_text(json.dumps(bundle))
    policy_args = ["--witness", w.vkeys[0], "--witness", w.vkeys[1]]
    ok = fairplay("verify", str(tmp_path / "bundle.json"), "--key", vkey, *policy_args)
    assert ok.returncode == 0, ok.stdout + ok.stderr
    assert "witnesses: 2 of 2" in ok.stdout
    strict = fairplay(
        "verify", str(tmp_path / "bundle.json"), "--key", vkey, *policy_args,
        "--witness", w.vkeys[2], "--witness-quorum", "3",
    )  # fmt: skip
    assert strict.returncode == 1
    assert "LOG_WITNESS_QUORUM" in strict.stdout and "missing: w3.test" in strict.stdout

    # the other view: the same log key and origin, another history
    other = TableBots.open(b.client(), random.Random(2))
    for hand in (1, 2, 3):
        other.play_hand(hand)
    seen_b = get_text(b.url + "/v1/log/checkpoint")
    refused = w.once(1, b.url)
    assert refused.returncode == 1, refused.stdout + refused.stderr
    assert "REFUSED split view" in refused.stderr
    evidence = json.loads((tmp_path / "evidence-w1.json").read_text())
    assert json.loads(refused.stdout) == evidence
    verify_split_view_evidence(evidence, vkey)
    assert evidence["checkpoints"][1] == seen_b
    # the refusal holds: the state still holds a's view, and b got no cosignature
    assert w.once(1, b.url).returncode == 1
    assert w.once(1, a.url).returncode == 0
    with pytest.raises(WitnessPolicyError, match=r"missing: w1.test, w2.test"):
        verify_witnessed_checkpoint(
            get_text(b.url + "/v1/log/checkpoint"), vkey, WitnessPolicy.of(w.vkeys[:2], 1)
        )
    # a's cosigned checkpoint posted to b: b never stored it
    status, err = post(b.url, seen_a.encode())
    assert (status, err["code"]) == (409, "CHECKPOINT_UNKNOWN")

    # a client that kept a's checkpoint and is now shown b's finds the split view
    with pytest.raises(SplitViewError) as caught:
        compare_views(seen_a, seen_b, verify_split_view_key(vkey), HttpLog(b.url).consistency)
    verify_split_view_evidence(caught.value.evidence, vkey)

    # the browser's verifier, given what a browser would have fetched from each view
    sizes = sorted((cp_a.size, caught.value.evidence["sizes"][1]))
    proof_b = json.loads(
        get_text(f"{b.url}/v1/log/proofs/consistency?from={sizes[0]}&to={sizes[1]}")
    )["proof"]
    seen = {
        "log_key": vkey,
        "witnesses": w.vkeys[:2],
        "quorum": 2,
        "first": seen_a,
        "second": seen_b,
        "proof": proof_b,
    }
    (tmp_path / "views.json").write_text(json.dumps(seen))
    js = subprocess.run(
        [node(), "tests/js/witness_split.mjs", str(tmp_path / "views.json")],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert js.returncode == 0, js.stdout + js.stderr
    verdict = json.loads(js.stdout)
    assert verdict["first_policy"] == "ok"
    assert verdict["second_policy"].startswith("LOG_WITNESS_QUORUM")
    assert "w1.test" in verdict["second_policy"] and "w2.test" in verdict["second_policy"]
    assert verdict["consistency"].startswith("LOG_INCONSISTENT")


def verify_split_view_key(vkey: str) -> Any:
    from audit.log.keys import Verifier

    return Verifier.from_text(vkey)


def test_the_cosignature_route_refuses_what_it_cannot_verify(
    make_service: Callable[..., Running], tmp_path: Path, backend: str
) -> None:
    """On SQLite and PostgreSQL: what the route refuses, and what it stores and serves."""
    w = Witnesses(tmp_path)
    svc = make_service(backend, witness_keys=w.vkeys[:1])
    bots = TableBots.open(svc.client(), random.Random(3))
    bots.play_hand(1)
    note = get_text(svc.url + "/v1/log/checkpoint")
    # no cosignature line by a configured witness
    status, err = post(svc.url, note.encode())
    assert (status, err["code"]) == (403, "FORBIDDEN")
    # w2's cosignature: not a configured key
    assert w.once(2, svc.url).returncode == 2
    # following, not once: the refusal ends the witness too, where a 503 or an unreachable
    # log is asked again (test_db_outage_clients.py): asking again gets the same answer
    key2 = str(tmp_path / "w2.key")
    done = fairplay("witness", "--log", svc.url, "--key", key2, "--interval", "0.2", timeout=60)
    assert done.returncode == 2, done.stderr
    assert "HTTP 403" in done.stderr and "configured witness" in done.stderr, done.stderr
    assert "retrying" not in done.stderr, done.stderr
    # not a note, not UTF-8, not this log's signature
    assert post(svc.url, b"hello")[0] == 400
    assert post(svc.url, b"\xff\xfe")[0] == 400
    text = note.split("\n\n")[0] + "\n"
    impostor = generate_signer(svc.app.extensions["fairplay"].hand_log.signer.name)
    status, err = post(svc.url, sign_note(text, impostor).encode())
    assert status == 400 and err["details"]["path"] == "body", err
    # a witness line that does not verify: the route says which witness
    done = w.once(1, svc.url)
    assert done.returncode == 0, done.stderr
    cosigned = get_text(svc.url + "/v1/log/checkpoint")
    line = cosigned.rstrip("\n").rsplit("\n", 1)[1]
    flipped = line[:-6] + ("A" if line[-6] != "A" else "B") + line[-5:]
    status, err = post(svc.url, cosigned.replace(line, flipped).encode())
    assert (status, err["code"]) == (422, "LOG_SIGNATURE_INVALID"), err
    assert "w1.test" in err["message"]
    # the stored line is untouched, and served
    assert get_text(svc.url + "/v1/log/checkpoint") == cosigned
