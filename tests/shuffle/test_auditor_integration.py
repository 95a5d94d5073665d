"""End to end: ceremony → played hands → record → the auditor's SHUFFLE_MISMATCH check."""

from __future__ import annotations

import copy
import json
import random
from typing import Any

import pytest

from audit.rules.cards import CARD_TEXT, Seat
from shuffle.ceremony import Ceremony
from shuffle.protocol import new_seed, seat_commitment

auditor = pytest.importorskip("audit.auditor")
generate = pytest.importorskip("audit.record.generate")


def certified_record(n: int = 3) -> dict[str, Any]:
    rng = random.Random(5)  # only the play is random here; the deal comes from the ceremony
    players = {s: f"p{s.name}" for s in Seat}
    hands, dealer = [], Seat.N
    for i in range(n):
        c = Ceremony("e2e", i + 1, dealer, players, pack=i % 2)
        seeds = {s: new_seed() for s in Seat}
        for s in Seat:
            c.commit(s, seat_commitment(seeds[s], s, players[s], "e2e", i + 1))
        for s in Seat:
            c.reveal(s, seeds[s])
        d = c.deal()
        state, order = generate.play_hand(rng, dealer, order=d.pack_order, cayenne=d.cayenne)
        h = state.to_record_hand()
        h["pack"] = i % 2
        h["dealt_order"] = [CARD_TEXT[x] for x in order]
        h["shuffle"] = c.finish().to_json()
        hands.append(h)
        dealer = dealer.left
    return {"format": "cayenne-record/1", "hands": hands}


def shuffle_findings(report: dict[str, Any]) -> list[dict[str, Any]]:
    found: list[dict[str, Any]] = []

    def walk(node: Any) -> None:
        if isinstance(node, dict):
            if str(node.get("code", "")).startswith("SHUFFLE") and "severity" in node:
                found.append(node)
            for v in node.values():
                walk(v)
        elif isinstance(node, list):
            for v in node:
                walk(v)

    walk(report)
    return found


def test_certified_record_audits_clean_and_tampering_is_reported() -> None:
    doc = certified_record()
    assert shuffle_findings(auditor.audit_document(json.loads(json.dumps(doc)))) == []

    bad = copy.deepcopy(doc)
    bad["hands"][1]["shuffle"]["seats"]["E"]["seed"] = "00" * 32
    found = shuffle_findings(auditor.audit_document(bad))
    assert [(f["code"], f["hand"]) for f in found] == [("SHUFFLE_MISMATCH", 2)]
    assert "seats.E.seed" in found[0]["message"]
    assert found[0]["evidence"]["code"] == "SHUFFLE_COMMITMENT_MISMATCH"

    swapped = copy.deepcopy(doc)
    h = swapped["hands"][2]
    h["cayenne"] = next(c for c in ("AS", "KS") if c != h["cayenne"])
    found = shuffle_findings(auditor.audit_document(swapped))
    assert [(f["code"], f["hand"]) for f in found] == [("SHUFFLE_MISMATCH", 3)]
    assert found[0]["evidence"]["code"] == "SHUFFLE_OUTCOME_MISMATCH"
