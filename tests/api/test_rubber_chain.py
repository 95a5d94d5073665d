"""Online hands are recorded one per record; chained by `next_start`, they value whole rubbers."""

from __future__ import annotations

import copy
import random

from api.handstate import next_start
from audit.auditor import audit_document
from audit.record.generate import random_record


def test_per_hand_records_chained_by_next_start_give_the_whole_rubbers() -> None:
    for seed in range(5):
        whole = random_record(random.Random(seed), 24, claimed=False)
        expected = [r for r in audit_document(whole)["rubbers"] if r["winner"] is not None]
        start = {"points": {"NS": 0, "EW": 0}, "games": {"NS": 0, "EW": 0}}
        finished = []
        for hand in whole["hands"]:
            doc = {"format": "cayenne-record/1", "start": copy.deepcopy(start), "hands": [hand]}
            report = audit_document(doc)
            if report["rubbers"] and report["rubbers"][-1]["winner"] is not None:
                finished.append(report["rubbers"][-1])
            start = next_start(report)
        assert [(r["winner"], r["value"], r["totals"]) for r in finished] == [
            (r["winner"], r["value"], r["totals"]) for r in expected
        ]
