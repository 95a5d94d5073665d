"""The event schemas: shipped, valid, gating every append, and not imposed on history."""

from __future__ import annotations

import base64
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from audit.log import schemas
from audit.log.bundle import build_bundle, verify_bundle
from audit.log.errors import EventError, LogInconsistent
from audit.log.events import (
    canonical_json,
    event_hash,
    loads,
    make_event,
    parse_event,
    sign_event,
    signing_input,
)
from audit.log.keys import Signer, generate_signer, save_signer
from audit.log.store import appends, open_log
from audit.log.verify import verify_log
from tests.log.conftest import ORIGIN

SHIPPED = ("event", *schemas.CAYENNE_TYPES)


def signed_as_of_old(event: dict[str, Any], signer: Signer) -> dict[str, Any]:
    """Signed as the log signed before the schemas: no admission check."""
    out = dict(event, key=signer.verifier_key())
    out["signature"] = base64.b64encode(signer.sign(signing_input(out))).decode()
    return out


def event(signer: Signer, seq: int = 0, prev: str | None = None, **extra: Any) -> dict[str, Any]:
    ev = make_event(
        origin=ORIGIN,
        table="t",
        hand="h",
        seq=seq,
        prev=prev,
        actor=signer.name,
        type="play",
        body={"card": 51},
    )
    ev.update(extra)
    return ev


@pytest.mark.parametrize("name", SHIPPED)
def test_each_shipped_schema_is_a_valid_draft7_schema(name: str) -> None:
    doc = schemas.schema(name)
    jsonschema.Draft7Validator.check_schema(doc)
    assert doc["$id"] == f"{schemas.BASE_URI}{name}.json"


def test_the_schemas_are_package_data() -> None:
    pyproject = (Path(__file__).parents[2] / "pyproject.toml").read_text()
    assert '"log/schema/*.json"' in pyproject


JUNK = [
    ({"time": "2024-05-01T12:30:00"}, "events[0].time"),
    ({"time": "2024-13-01T12:30:00Z"}, "events[0].time"),
    ({"junk": 1}, "events[0]"),  # the structural check names it: event.junk
    ({"type": "Play!"}, "events[0].type"),
    ({"body": {"card": "x" * 70_000}}, "events[0]"),
    ({"body": {str(i): i for i in range(65)}}, "events[0].body"),
    ({"actor": "a" * 129}, "events[0].actor"),
]


@pytest.mark.parametrize(("extra", "where"), JUNK)
def test_the_log_refuses_junk_before_appending(
    log_url: str, log_signer: Signer, extra: dict[str, Any], where: str
) -> None:
    north = generate_signer("north")
    with open_log(log_url, ORIGIN, log_signer, require_registered_keys=False) as log:
        good = sign_event(event(north), north)
        log.append([good])
        bad = signed_as_of_old(event(north, 1, event_hash(good), **extra), north)
        with pytest.raises(EventError) as caught:
            log.append([bad])
        assert where in caught.value.message or caught.value.message.startswith("event.junk")
        assert log.size() == 1
        with pytest.raises(EventError):
            sign_event(event(north, 1, event_hash(good), **extra), north)
        ok = sign_event(event(north, 1, event_hash(good), time="2024-05-01T12:30:00.5Z"), north)
        assert log.append([ok]) == [1]


def test_a_log_written_before_the_schemas_still_verifies(
    tmp_path: Path, log_signer: Signer, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Decision: the schemas gate what is accepted; readers check integrity only."""
    north = generate_signer("north")
    url = f"sqlite:///{tmp_path / 'old.db'}"
    first = signed_as_of_old(event(north, time="last tuesday"), north)
    second = signed_as_of_old(
        event(north, 1, event_hash(first), body={"card": 5, "note": "n" * 20_000}), north
    )
    with monkeypatch.context() as old_code:  # the append as it was before the schemas
        old_code.setattr(appends, "admit_event", lambda *a, **k: None)
        with open_log(url, ORIGIN, log_signer, require_registered_keys=False) as log:
            log.append([first, second])
            log.checkpoint()
            bundle = build_bundle(log, "t", "h")
    with open_log(url, ORIGIN, log_signer) as log:
        assert verify_log(log, verifier=log_signer.verifier()) == []
        assert [e["event"]["body"] for e in log.hand_events("t", "h")][1]["note"]
    summary = verify_bundle(json.loads(json.dumps(bundle)), log_signer.verifier_key(), partial=True)
    assert summary["events"] == 2


def test_a_key_named_twice_is_refused_where_events_are_parsed(
    tmp_path: Path, log_signer: Signer
) -> None:
    north = generate_signer("north")
    good = canonical_json(sign_event(event(north), north)).decode()
    twice = good[:-1] + ',"body":{"card":1}}'
    with pytest.raises(EventError, match="duplicate key 'body'"):
        loads(twice)
    with pytest.raises(LogInconsistent, match="duplicate key 'body'"):
        parse_event(twice.encode(), entry=3)
    key = tmp_path / "log.key"
    save_signer(log_signer, key)
    events = tmp_path / "events.jsonl"
    events.write_text(twice + "\n")
    run = subprocess.run(
        [
            sys.executable,
            "-m",
            "audit.cli",
            "log",
            "append",
            "--db",
            f"sqlite:///{tmp_path / 'l.db'}",
        ]
        + ["--key", str(key), "--origin", ORIGIN, "--any-key", str(events)],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert run.returncode != 0 and "duplicate key 'body'" in run.stdout + run.stderr
    assert "Traceback" not in run.stderr


def test_the_largest_round_the_service_seats_fits_the_bound() -> None:
    """A 100-table Mitchell (the most the service seats) with 36 boards a round: its
    ``tournament_round`` event is admitted, with room to spare."""
    server = generate_signer("server")
    tables = [
        {
            "table": n,
            "id": f"t-{n:012x}",
            "ns": n,
            "ew": 100 + n,
            "seats": {s: f"p-{n:018x}{s}{s}" for s in "NESW"},
            "boards": list(range(3601 - 36, 3601)),
        }
        for n in range(1, 101)
    ]
    ev = make_event(
        origin=ORIGIN,
        table="e-0123456789ab",
        hand="event",
        seq=99,
        prev="ab" * 32,
        actor="server",
        type="tournament_round",
        body={"round": 99, "tables": tables, "bye": None},
        time="2024-05-01T12:30:00.500Z",
    )
    signed = sign_event(ev, server)  # admitted: the envelope and its size bound
    schemas.check_cayenne_event(signed)
    assert 16384 < len(canonical_json(signed)) < schemas.MAX_EVENT_BYTES * 3 // 5
