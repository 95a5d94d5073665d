"""What ``fairplay verify`` says of a checkpoint the player saved, for each size it can
have against the bundle's two checkpoints (issue 10, item 10: a saved checkpoint between
them was called "smaller than the bundle's checkpoints")."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from audit.cli import main
from audit.log.bundle import build_bundle, verify_bundle
from audit.log.errors import LogHandPartial
from audit.log.events import event_hash, make_event, sign_event
from audit.log.keys import Signer, generate_signer
from audit.log.store import open_log

from .conftest import ORIGIN, hand_events


def finished_hand(
    seats: list[Signer], server: Signer, table: str, hand: str, plays: int
) -> list[dict[str, Any]]:
    """``plays`` chained events and the server's ``end``."""
    evs = hand_events(seats, table, hand, plays)
    end = make_event(
        origin=ORIGIN,
        table=table,
        hand=hand,
        seq=plays,
        prev=event_hash(evs[-1]),
        actor=server.name,
        type="end",
        body={"tricks": 13},
    )
    return [*evs, sign_event(end, server)]


def test_saved_checkpoint_of_every_size(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    log_signer: Signer,
    players: dict[str, Signer],
) -> None:
    seats, server = list(players.values()), generate_signer("server")
    log = open_log(str(tmp_path / "s.db"), ORIGIN, log_signer, require_registered_keys=False)
    x = finished_hand(seats, server, "t", "x", 3)
    log.append(x[:2])
    older = log.checkpoint()  # size 2
    log.append(x[2:])
    first = log.checkpoint()  # size 4: the first covering hand x
    log.append(hand_events(seats, "t", "y", 3))
    between = log.checkpoint()  # size 7
    log.append(hand_events(seats, "t", "z", 2))
    bundle = build_bundle(log, "t", "x")  # later: a checkpoint of size 9
    log.append(hand_events(seats, "t", "w", 2))
    newer = log.checkpoint()  # size 11
    log.close()
    assert (bundle["events"][-1]["index"], bundle["later"]["checkpoint"].split("\n")[1]) == (3, "9")

    vkey = log_signer.verifier_key()
    want = {
        "between": "size 7, between the bundle's checkpoints (4 and 9): not checked; ask the "
        "log for the consistency proof from 7 to 9",
        "older": "size 2, older than the bundle's (4): not checked; ask the log for the "
        "consistency proof from 2 to 4",
        "newer": "size 11, newer than the bundle's (9): not checked; ask the log for the "
        "consistency proof from 9 to 11",
        "first": "consistent (the same tree of size 4)",
    }
    notes = {"between": between, "older": older, "newer": newer, "first": first}
    for name, note_text in notes.items():
        summary = verify_bundle(bundle, vkey, saved_checkpoint=note_text)
        assert summary["saved_checkpoint"] == want[name]
        assert summary["finished"] and summary["last_type"] == "end"

    bundle_file, saved_file = tmp_path / "x.json", tmp_path / "saved.note"
    bundle_file.write_text(json.dumps(bundle))
    saved_file.write_text(between)
    status = main(["verify", str(bundle_file), "--key", vkey, "--checkpoint", str(saved_file)])
    out = capsys.readouterr().out
    assert status == 0 and out.startswith("OK: table t hand x: 4 signed events")
    assert out.rstrip().endswith("; saved checkpoint: " + want["between"])
    assert "smaller" not in out


def test_partial_is_raised_last_and_can_be_allowed(
    tmp_path: Path, log_signer: Signer, players: dict[str, Signer]
) -> None:
    seats, server = list(players.values()), generate_signer("server")
    log = open_log(str(tmp_path / "p.db"), ORIGIN, log_signer, require_registered_keys=False)
    log.append(finished_hand(seats, server, "t", "x", 3)[:-1])
    log.checkpoint()
    bundle = build_bundle(log, "t", "x")
    log.close()
    vkey = log_signer.verifier_key()
    with pytest.raises(LogHandPartial, match="last event is 'play' \\(seq 2\\)") as info:
        verify_bundle(bundle, vkey)
    assert info.value.code == "LOG_HAND_PARTIAL"
    summary = verify_bundle(bundle, vkey, partial=True)
    assert not summary["finished"] and summary["events"] == 3
    # a broken partial bundle is reported as broken, not as partial
    bundle["events"][1]["event"]["body"]["card"] = 40
    with pytest.raises(Exception) as broken:
        verify_bundle(bundle, vkey)
    assert getattr(broken.value, "code", "") == "LOG_SIGNATURE_INVALID"
