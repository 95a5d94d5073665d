"""``fairplay verify`` passes only a bundle that shows a finished hand (issue 10, item 6).

A bundle cut before ``server_reveal`` and ``end`` still has valid signatures, chain and
inclusion proofs; it must be reported as partial (``LOG_HAND_PARTIAL``, exit 3), never
as OK. A hand that ends in ``end`` or ``void`` verifies.
"""

from __future__ import annotations

import json
import random
import secrets
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from api.bot import TableBots
from api.ceremony import seat_commitment
from api.client import ApiCallError
from audit.rules.cards import Seat
from tests.api.conftest import Running
from tests.api.helpers import open_table


def verify(bundle: dict[str, Any], vkey: str, tmp_path: Path) -> subprocess.CompletedProcess[str]:
    path = tmp_path / "bundle.json"
    path.write_text(json.dumps(bundle))
    return subprocess.run(
        [sys.executable, "-m", "audit.cli", "verify", str(path), "--key", vkey],
        capture_output=True,
        text=True,
        timeout=60,
    )


def test_a_bundle_cut_before_the_reveal_and_the_end_is_partial(
    service: Running, tmp_path: Path
) -> None:
    bots = TableBots.open(service.client(), random.Random(5))
    bots.play_hand(1)
    c, t = bots.client, bots.table
    vkey = c.call("GET", "/v1/log/key").strip()
    bundle = c.call("GET", f"/v1/tables/{t}/hands/1/proof")
    whole = verify(bundle, vkey, tmp_path)
    assert whole.returncode == 0 and whole.stdout.startswith("OK:"), whole.stdout + whole.stderr
    assert "ending with 'end'" in whole.stdout
    kinds = [item["event"]["type"] for item in bundle["events"]]
    assert kinds[-2:] == ["server_reveal", "end"]
    for cut in (1, 2, len(kinds) - 1):  # no end; no reveal and no end; only the open
        short = dict(bundle, events=bundle["events"][:-cut])
        done = verify(short, vkey, tmp_path)
        assert done.returncode == 3, done.stdout + done.stderr
        assert done.stdout.startswith(f"LOG_HAND_PARTIAL table {t} hand 1 is not finished")
        assert "partial bundle" in done.stdout and "OK" not in done.stdout


def signed_bundle(c: Any, path: str) -> Any:
    """The bundle once a checkpoint covers it: reads sign nothing, the writer signs
    within its interval of an append (404 with ``retry_after`` until then)."""
    deadline = time.monotonic() + 30
    while True:
        try:
            return c.call("GET", path)
        except ApiCallError as exc:
            if exc.status != 404 or time.monotonic() > deadline:
                raise
            time.sleep(0.05)


def test_a_hand_in_play_is_partial_and_a_void_hand_verifies(
    quick_checkpoints: float, service: Running, tmp_path: Path
) -> None:
    c = service.client()
    t = open_table(c, service.origin)
    seed = secrets.token_bytes(32)
    t.act("N", "commit", {"commitment": seat_commitment(seed, Seat.N, t.players["N"].id, t.id, 1)})
    vkey = c.call("GET", "/v1/log/key").strip()
    live = verify(signed_bundle(c, f"/v1/log/hands/{t.id}/1"), vkey, tmp_path)
    assert live.returncode == 3 and "last event is 'commit'" in live.stdout, live.stdout
    c.call("POST", f"/v1/tables/{t.id}/hands/1/void", {"reason": "E never came"}, c.admin())
    void = verify(signed_bundle(c, f"/v1/log/hands/{t.id}/1"), vkey, tmp_path)
    assert void.returncode == 0 and "ending with 'void'" in void.stdout, void.stdout + void.stderr
