"""``fairplay log verify`` with a witness policy: each saved checkpoint must be cosigned."""

from __future__ import annotations

from pathlib import Path

import pytest

from audit.cli import main
from audit.log.cosignature import cosign, witness_key_of
from audit.log.keys import Signer, generate_signer
from audit.log.note import parse as parse_note
from audit.log.store import open_log
from tests.log.conftest import ORIGIN, hand_events


def test_log_verify_applies_the_policy_to_saved_checkpoints(
    tmp_path: Path,
    log_signer: Signer,
    players: dict[str, Signer],
    capsys: pytest.CaptureFixture[str],
) -> None:
    db = f"sqlite:///{tmp_path / 'log.db'}"
    with open_log(db, ORIGIN, log_signer) as log:
        for p in players.values():
            log.register_key(p.name, p.verifier())
        log.append(hand_events(list(players.values()), "t1", "1", 5))
        note_text = log.checkpoint()
    w1, w2 = generate_signer("w1.test"), generate_signer("w2.test")
    body = parse_note(note_text)[0]
    saved = tmp_path / "cp.txt"
    saved.write_text(note_text + cosign(body, w1, 100).line())
    base = ["log", "verify", "--db", db, "--vkey", log_signer.verifier_key()]
    k1, k2 = witness_key_of(w1).text(), witness_key_of(w2).text()
    assert main([*base, "--checkpoint", str(saved), "--witness", k1]) == 0
    capsys.readouterr()
    assert main([*base, "--checkpoint", str(saved), "--witness", k1, "--witness", k2]) == 1
    out = capsys.readouterr().out
    assert "LOG_WITNESS_QUORUM" in out and "missing: w2.test" in out
    assert main([*base, "--checkpoint", str(saved), "--witness", k1, "--witness", k2,
                 "--witness-quorum", "1"]) == 0  # fmt: skip
    assert main([*base, "--witness", k1]) == 2  # a policy needs a checkpoint to apply to
    assert "--checkpoint" in capsys.readouterr().err
