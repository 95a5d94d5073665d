"""The event-wide audit: stacking pooled per player across the records of an event."""

from __future__ import annotations

import random
from typing import Any

from audit.tournament.event import read_event
from audit.tournament.eventaudit import stacked_dealers

from .events import mitchell_event


def _event_and_reports(p_values: list[list[float]]) -> tuple[Any, tuple[dict[str, Any], ...]]:
    """An event of len(p_values) records; record i's hand j dealt by N with p-value p."""
    records = mitchell_event(random.Random(0), tables=len(p_values), rounds=1)
    for r in records:
        r["players"]["N"] = "Dora"  # the same dealer at every table
    event = read_event([(f"r{i}", r) for i, r in enumerate(records)])
    reports = tuple(
        {
            "hands": [
                {"hand": j + 1, "dealer": "N", "stacking": {"p_value": p}} for j, p in enumerate(ps)
            ]
        }
        for ps in p_values
    )
    return event, reports


def test_a_dealer_inconclusive_in_each_record_is_found_across_the_event() -> None:
    event, reports = _event_and_reports([[0.01, 0.02], [0.01, 0.03], [0.02, 0.01]])
    found = stacked_dealers(event, reports, 0.001)
    assert [f.code for f in found] == ["STACKED_DEALER_EVENT"]
    ev = found[0].evidence
    assert ev["dealer"] == "Dora" and len(ev["deals"]) == 6
    assert ev["combined_p_value"] < ev["threshold"] == 0.001  # one player tested
    assert {d["table"] for d in ev["deals"]} == {"1", "2", "3"}


def test_honest_p_values_and_single_record_dealers_are_not_reported() -> None:
    event, reports = _event_and_reports([[0.5, 0.2], [0.7, 0.4], [0.3, 0.9]])
    assert stacked_dealers(event, reports, 0.001) == []
    event, reports = _event_and_reports([[1e-9, 1e-9], [], []])
    assert stacked_dealers(event, reports, 0.001) == []  # the record's own STACKED_DEALER speaks
