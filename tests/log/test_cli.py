"""`fairplay log ...` and `fairplay verify BUNDLE` end to end, through audit.cli.main."""

from __future__ import annotations

import json
import re
import sqlite3
from pathlib import Path

import pytest

from audit.cli import main
from audit.log.keys import generate_signer

from .conftest import hand_events

ORIGIN = "cli.fairplay.test/log"


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    status = main(list(argv))
    out, err = capsys.readouterr()
    return status, out, err


def test_log_commands_end_to_end(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    db = f"sqlite:///{tmp_path / 'log.db'}"
    key = str(tmp_path / "log.key")
    status, vkey, _ = run(capsys, "log", "keygen", ORIGIN, "--out", key)
    assert status == 0 and vkey.startswith(ORIGIN + "+")
    vkey = vkey.strip()
    north, south = generate_signer("north"), generate_signer("south")
    common = ("--db", db, "--origin", ORIGIN, "--key", key)
    for p in (north, south):
        assert run(capsys, "log", "register", *common, p.name, p.verifier_key())[0] == 0
    evs = hand_events([north, south], "t1", "1", 6, origin=ORIGIN)
    events_file = tmp_path / "events.jsonl"
    events_file.write_text("".join(json.dumps(e) + "\n" for e in evs[:4]))
    status, out, _ = run(capsys, "log", "append", *common, str(events_file))
    assert status == 0 and json.loads(out) == {"indices": [0, 1, 2, 3], "size": 4}
    status, saved, _ = run(capsys, "log", "checkpoint", *common)
    assert status == 0 and saved.startswith(f"{ORIGIN}\n4\n")
    saved_file = tmp_path / "saved.note"
    saved_file.write_text(saved)
    events_file.write_text(json.dumps(evs[4:]))
    assert run(capsys, "log", "append", *common, str(events_file))[0] == 0
    # replaying an event fails with one line on stderr and status 2
    status, _, err = run(capsys, "log", "append", *common, str(events_file))
    assert status == 2 and "seq" in err and err.count("\n") == 1

    status, out, _ = run(
        capsys, "log", "verify", "--db", db, "--vkey", vkey, "--checkpoint", str(saved_file)
    )
    assert status == 0 and out.startswith("OK: 6 entries")
    bundle_file = tmp_path / "hand.json"
    assert (
        run(
            capsys,
            "log",
            "bundle",
            *common,
            "--table",
            "t1",
            "--hand",
            "1",
            "--out",
            str(bundle_file),
        )[0]
        == 0
    )
    status, out, _ = run(
        capsys, "verify", str(bundle_file), "--key", vkey, "--checkpoint", str(saved_file)
    )
    # every check holds, but these six plays are not a finished hand (no end, no void)
    assert status == 3 and out.startswith("LOG_HAND_PARTIAL table t1 hand 1 is not finished")
    assert "its 6 events verify" in out

    status, out, _ = run(capsys, "log", "prove", "--db", db, "2")
    assert status == 0 and out.startswith("c2sp.org/tlog-proof@v1\nindex 2\n")

    bundle = json.loads(bundle_file.read_text())
    bundle["events"][3]["event"]["body"]["card"] = 13
    bundle_file.write_text(json.dumps(bundle))
    status, out, _ = run(capsys, "verify", str(bundle_file), "--key", vkey)
    assert status == 1 and out.startswith("LOG_SIGNATURE_INVALID entry 3:")

    # tamper with the database behind the log's back: verify names the entry
    conn = sqlite3.connect(tmp_path / "log.db", isolation_level=None)
    conn.execute("DROP TRIGGER log_entries_no_update")
    conn.execute(
        "UPDATE log_entries SET leaf = replace(leaf, '\"card\":4', '\"card\":5') WHERE idx = 4"
    )
    conn.close()
    status, out, _ = run(capsys, "log", "verify", "--db", db, "--json")
    report = json.loads(out)
    assert status == 1 and not report["ok"]
    at4 = {f["code"] for f in report["findings"] if f["entry"] == 4}
    assert at4 == {"LOG_INCONSISTENT", "LOG_SIGNATURE_INVALID"}
    # the next event of the hand no longer chains to the altered one
    assert {f["code"] for f in report["findings"] if f["entry"] == 5} == {"LOG_CHAIN_BROKEN"}
    # the same structure as an audit report's findings
    assert all(
        f["severity"] == "error" and f["evidence"]["entry"] == f["entry"]
        for f in report["findings"]
    )


def test_fork_evidence_command(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from audit.log.checkpoint import Checkpoint, verify_fork_evidence

    signer = generate_signer(ORIGIN)
    a, b = tmp_path / "a", tmp_path / "b"
    a.write_text(Checkpoint(ORIGIN, 3, b"\1" * 32).sign(signer))
    b.write_text(Checkpoint(ORIGIN, 3, b"\2" * 32).sign(signer))
    status, out, _ = run(
        capsys, "log", "fork-evidence", str(a), str(b), "--vkey", signer.verifier_key()
    )
    assert status == 0
    verify_fork_evidence(json.loads(out), signer.verifier_key())
    status, _, err = run(
        capsys, "log", "fork-evidence", str(a), str(a), "--vkey", signer.verifier_key()
    )
    assert status == 2 and "no fork" in err


def test_checkpoint_schedule(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    import threading
    import time

    from audit.log.keys import save_signer
    from audit.log.store import open_log

    signer = generate_signer(ORIGIN)
    key = tmp_path / "k"
    save_signer(signer, key)
    db = str(tmp_path / "s.db")
    north = generate_signer("north")
    evs = hand_events([north], "t", "h", 4, origin=ORIGIN)

    with open_log(db, ORIGIN, signer, require_registered_keys=False) as log:
        log.append(evs[:2])

    def grow() -> None:
        time.sleep(0.3)
        with open_log(db, ORIGIN, signer, require_registered_keys=False) as log:
            log.append(evs[2:])

    t = threading.Thread(target=grow)
    t.start()
    status, out, _ = run(
        capsys,
        "log",
        "checkpoint",
        "--db",
        db,
        "--origin",
        ORIGIN,
        "--key",
        str(key),
        "--every",
        "0.1",
        "--count",
        "2",
    )
    t.join()
    sizes = re.findall(rf"^{re.escape(ORIGIN)}\n(\d+)\n", out, re.MULTILINE)
    assert status == 0 and sizes == ["2", "4"]  # one checkpoint per period, only when grown
