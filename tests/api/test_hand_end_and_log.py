"""The end of a hand (reveal, record, report, next hand) and the log over HTTP.

Every proof is checked from outside: inclusion and consistency with the public merkle
verifiers against the signed checkpoint, and the hand's bundle with ``fairplay verify``
given only the log's verifier key.
"""

from __future__ import annotations

import base64
import json
import random
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from api.bot import TableBots
from audit.log import merkle
from audit.log.checkpoint import parse as parse_checkpoint
from audit.log.errors import ProofError
from audit.log.note import verify as verify_note
from shuffle.verify import check_record_hand
from tests.api.conftest import Running


@pytest.fixture
def finished(service: Running) -> TableBots:
    bots = TableBots.open(service.client(), random.Random(11))
    bots.play_hand(1)
    return bots


def b64(values: list[str]) -> list[bytes]:
    return [base64.b64decode(v) for v in values]


def test_end_of_hand_record_report_and_next_hand(finished: TableBots) -> None:
    c, t = finished.client, finished.table
    h1 = c.hand(t, 1)
    assert h1["phase"] == "over" and h1["ceremony"]["server_seed"] and h1["ceremony"]["deal_number"]
    record = c.call("GET", f"/v1/tables/{t}/hands/1/record")
    hand = record["hands"][0]
    assert len(hand["tricks"]) == 13 and sorted(
        hand["gathered"]["NS"] + hand["gathered"]["EW"]
    ) == list(range(1, 14))
    result = check_record_hand(
        hand, record["ruleset"]["deal_pattern"]
    )  # the deal follows from the shuffle
    assert str(result.deal_number) == h1["ceremony"]["deal_number"]
    report = c.call("GET", f"/v1/tables/{t}/hands/1/report")
    assert (
        report["id"] == h1["report_id"] and report["report"]["format"] == "cayenne-audit-report/1"
    )
    assert report["report"]["verdict"] == "clean", report["report"]["findings"]
    same = c.call("GET", f"/v1/audits/{report['id']}")
    assert same["report"] == report["report"] and same["table"] == t and same["hand"] == 1
    h2 = c.hand(t, 2)
    assert (h2["phase"], h2["dealer"], h2["pack"]) == ("committing", "E", 1)
    assert h2["score_before"] == h1["score_after"]
    assert h1["score_after"]["points"] == report["report"]["hands"][0]["score"]["points"]
    table_record = c.call("GET", f"/v1/tables/{t}/record")
    assert table_record["hands"] == [hand]
    events = c.call("GET", f"/v1/tables/{t}/hands/1/events")["events"]
    kinds = [e["event"]["type"] for e in events]
    assert kinds[0] == "open" and kinds[-2:] == ["server_reveal", "end"]
    assert kinds.count("commit") == 4 and kinds.count("reveal") == 4 and kinds.count("play") == 52


def test_log_key_checkpoint_and_proofs(finished: TableBots) -> None:
    c = finished.client
    vkey = c.call("GET", "/v1/log/key").strip()
    note = c.call("GET", "/v1/log/checkpoint")
    cp = parse_checkpoint(verify_note(note, vkey))
    assert cp.size > 60
    entries = c.call("GET", f"/v1/log/entries?start=0&end={cp.size}")["entries"]
    assert [e["index"] for e in entries] == list(range(cp.size))
    for index in (0, cp.size // 2, cp.size - 1):
        proof = c.call("GET", f"/v1/log/proofs/inclusion?index={index}")
        cp_p = parse_checkpoint(verify_note(proof["checkpoint"], vkey))
        from audit.log.events import canonical_json

        leaf = merkle.leaf_hash(canonical_json(entries[index]["event"]))
        assert base64.b64decode(proof["leaf_hash"]) == leaf
        merkle.verify_inclusion(leaf, index, cp_p.size, b64(proof["proof"]), cp_p.root)
        with pytest.raises(ProofError):
            merkle.verify_inclusion(
                merkle.leaf_hash(b"forged"), index, cp_p.size, b64(proof["proof"]), cp_p.root
            )
    small = 5  # no checkpoint of this size was signed: the old root comes unsigned
    cons = c.call("GET", f"/v1/log/proofs/consistency?from={small}")
    new = parse_checkpoint(verify_note(cons["checkpoint"], vkey))
    assert cons["from_checkpoint"] is None
    old_root = base64.b64decode(cons["from_root"])
    merkle.verify_consistency(small, new.size, old_root, new.root, b64(cons["proof"]))
    with pytest.raises(ProofError):
        merkle.verify_consistency(small, new.size, bytes(32), new.root, b64(cons["proof"]))


def fairplay(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "audit.cli", *args], capture_output=True, text=True, timeout=60
    )


def test_hand_bundle_verifies_offline_and_tampering_fails(
    finished: TableBots, tmp_path: Path
) -> None:
    c, t = finished.client, finished.table
    vkey = c.call("GET", "/v1/log/key").strip()
    bundle = c.call("GET", f"/v1/tables/{t}/hands/1/proof")
    assert bundle == c.call("GET", f"/v1/log/hands/{t}/1") or bundle["events"]
    path = tmp_path / "bundle.json"
    path.write_text(json.dumps(bundle))
    ok = fairplay("verify", str(path), "--key", vkey)
    assert ok.returncode == 0, ok.stdout + ok.stderr
    tampered: dict[str, Any] = json.loads(json.dumps(bundle))
    play = next(e for e in tampered["events"] if e["event"]["type"] == "play")
    play["event"]["body"]["card"] = "2S" if play["event"]["body"]["card"] != "2S" else "3S"
    path.write_text(json.dumps(tampered))
    bad = fairplay("verify", str(path), "--key", vkey)
    assert bad.returncode == 1 and "LOG_SIGNATURE_INVALID" in bad.stdout + bad.stderr


def checkpoint_rows(service: Running) -> list[str]:
    return list(service.app.extensions["fairplay"].hand_log.log.checkpoints())


def test_reads_sign_nothing(service: Running, finished: TableBots, tmp_path: Path) -> None:
    """A sweep of every proof, bundle and checkpoint read adds no checkpoint, and what it
    serves still verifies: against the checkpoint, or an old size's unsigned root against
    the checkpoint of that size a client kept."""
    c, t = finished.client, finished.table
    vkey = c.call("GET", "/v1/log/key").strip()
    finished.play_hand(2)  # two hand ends: two checkpoints, the first one a client kept
    kept = checkpoint_rows(service)
    assert len(kept) >= 2
    first = parse_checkpoint(verify_note(kept[0], vkey))
    note = c.call("GET", "/v1/log/checkpoint")
    size = parse_checkpoint(verify_note(note, vkey)).size
    by_size = {parse_checkpoint(verify_note(k, vkey)).size: k for k in kept}
    for n in range(1, size + 1):
        inc = c.call("GET", f"/v1/log/proofs/inclusion?index={n - 1}&size={n}")
        assert inc["checkpoint"] == by_size.get(n)
        c.call("GET", f"/v1/log/proofs/inclusion?index={n - 1}")
        cons = c.call("GET", f"/v1/log/proofs/consistency?from={n}&to={size}")
        if n == first.size:  # the old root is the one the kept checkpoint signed
            assert base64.b64decode(cons["from_root"]) == first.root
            merkle.verify_consistency(
                n, size, first.root, base64.b64decode(cons["root"]), b64(cons["proof"])
            )
    bundles = []
    for number in (1, 2, 3):
        bundles.append(c.call("GET", f"/v1/log/hands/{t}/{number}"))
    for number in (1, 2):
        bundles.append(c.call("GET", f"/v1/tables/{t}/hands/{number}/proof"))
    assert c.call("GET", "/v1/log/checkpoint") == note  # the same note for every reader
    assert checkpoint_rows(service) == kept  # not one checkpoint signed by the sweep
    for bundle in bundles[3:]:
        path = tmp_path / "bundle.json"
        path.write_text(json.dumps(bundle))
        ok = fairplay("verify", str(path), "--key", vkey)
        assert ok.returncode == 0, ok.stdout + ok.stderr


def test_the_writer_signs_appends_no_hand_end_covered(
    make_service: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Entries no hand end covers are signed by the commit thread within the interval;
    until then a proof for them is refused (404), not signed for the reader."""
    import time

    from api import hand_log

    monkeypatch.setattr(hand_log, "CHECKPOINT_INTERVAL", 0.5)
    service = make_service()
    c = service.client()
    bots = TableBots.open(c, random.Random(3))
    before = checkpoint_rows(service)
    size = service.app.extensions["fairplay"].hand_log.log.size()
    waited = time.monotonic()
    while len(checkpoint_rows(service)) == len(before):
        assert time.monotonic() - waited < 10, "no checkpoint was signed after the appends"
        time.sleep(0.05)
    note = c.call("GET", "/v1/log/checkpoint")
    assert parse_checkpoint(verify_note(note, c.call("GET", "/v1/log/key").strip())).size == size
    assert c.call("GET", f"/v1/log/hands/{bots.table}/1")["checkpoint"] == note
