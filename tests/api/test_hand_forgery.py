"""``fairplay verify`` derives a finished hand from its players' signed events (issue 18,
part 1): the tricks the server's ``end`` states, and a record given with ``--record``,
must follow from the seeds, the calls and the plays; an operator who re-signs ``end``
and the checkpoint with the log key cannot make another record or result verify."""

from __future__ import annotations

import copy
import hashlib
import json
import random
import subprocess
import sys
from pathlib import Path
from typing import Any

from api.bot import TableBots
from audit.log.events import canonical_json
from tests.api.conftest import Running

from .forge import forge_hand_bundle


def verify(
    bundle: dict[str, Any], vkey: str, tmp_path: Path, record: Any = None
) -> subprocess.CompletedProcess[str]:
    path = tmp_path / "bundle.json"
    path.write_text(json.dumps(bundle))
    extra = []
    if record is not None:
        (tmp_path / "record.json").write_text(json.dumps(record))
        extra = ["--record", str(tmp_path / "record.json")]
    return subprocess.run(
        [sys.executable, "-m", "audit.cli", "verify", str(path), "--key", vkey, *extra],
        capture_output=True,
        text=True,
        timeout=60,
    )


def test_a_hand_and_its_record_follow_from_the_signed_events_and_forgeries_fail(
    service: Running, tmp_path: Path
) -> None:
    bots = TableBots.open(service.client(), random.Random(7))
    bots.play_hand(1)
    c, t = bots.client, bots.table
    vkey = c.call("GET", "/v1/log/key").strip()
    bundle = c.call("GET", f"/v1/tables/{t}/hands/1/proof")
    record = c.call("GET", f"/v1/tables/{t}/hands/1/record")
    signer = service.app.extensions["fairplay"].hand_log.signer
    ok = verify(bundle, vkey, tmp_path, record)
    assert ok.returncode == 0, ok.stdout + ok.stderr
    assert "the record follows from them, field by field" in ok.stdout
    end = bundle["events"][-1]["event"]["body"]
    # the forger's own re-signing changes nothing
    same = verify(forge_hand_bundle(bundle, signer, end), vkey, tmp_path, record)
    assert same.returncode == 0, same.stdout + same.stderr

    def forged(change: Any) -> subprocess.CompletedProcess[str]:
        rec = copy.deepcopy(record)
        change(rec)
        body = dict(end, record_sha256=hashlib.sha256(canonical_json(rec)).hexdigest())
        return verify(forge_hand_bundle(bundle, signer, body), vkey, tmp_path, rec)

    def contract(rec: dict[str, Any]) -> None:
        call = rec["hands"][0]["calls"][-1]
        call["call"] = "C" if call["call"] != "C" else "S"

    def north_south(rec: dict[str, Any]) -> None:
        p = rec["players"]
        p["N"], p["S"] = p["S"], p["N"]

    def cards(rec: dict[str, Any]) -> None:
        tricks = rec["hands"][0]["tricks"]
        tricks[0]["cards"][0], tricks[1]["cards"][0] = tricks[1]["cards"][0], tricks[0]["cards"][0]

    for change, path in (
        (contract, "record.hands[0].calls"),
        (north_south, "record.players.N"),
        (cards, "record.hands[0].tricks[0].cards[0]"),
    ):
        done = forged(change)
        assert done.returncode == 1, done.stdout + done.stderr
        assert done.stdout.startswith("RECORD_MISMATCH") and path in done.stdout, done.stdout
    # the tricks the server's end states, re-signed: the players' plays give others
    won = end["tricks"]
    lie = dict(end, tricks={"NS": won["EW"], "EW": won["NS"]})
    if lie["tricks"] != won:
        done = verify(forge_hand_bundle(bundle, signer, lie), vkey, tmp_path)
        assert done.returncode == 1 and "RECORD_MISMATCH end" in done.stdout, done.stdout
    # a record that is not the one the end signs
    other = copy.deepcopy(record)
    contract(other)
    done = verify(bundle, vkey, tmp_path, other)
    assert done.returncode == 1 and "not the record whose hash" in done.stdout, done.stdout
