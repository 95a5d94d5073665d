"""The hands the service records at a table take the auditor's native fast path, and
its report is the Python auditor's, byte for byte (the fast path leaves the shuffle
transcript to Python and checks the rest itself)."""

from __future__ import annotations

import json
import random

import pytest

from api.bot import TableBots
from audit import native
from audit.auditor import audit_record
from audit.record.codec import load_record
from tests.api.conftest import Running

if not native.available():
    pytest.skip("the native fast path is not built or is off", allow_module_level=True)


@pytest.mark.parametrize("seed", range(3))
def test_the_service_s_hands_take_the_fast_path_with_the_same_report(
    service: Running, seed: int
) -> None:
    bots = TableBots.open(service.client(), random.Random(seed))
    for n in (1, 2, 3):  # the rubber's start, its sheet and the packs as they alternate
        bots.play_hand(n)
        doc = bots.client.call("GET", f"/v1/tables/{bots.table}/hands/{n}/record")
        assert "shuffle" in doc["hands"][0]
        fast = native.audit_fast(doc, 0.001)
        assert fast is not None, "an online hand in order must take the fast path"
        assert json.dumps(fast) == json.dumps(audit_record(load_record(doc), alpha=0.001))
