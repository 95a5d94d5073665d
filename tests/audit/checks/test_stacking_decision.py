"""The record's decision on stacking, and both readings of a gathered pile.

A turned pile (each pile's first trick on top) is found as the physical reading is;
an honest record is irregular at most ``alpha`` of the time whatever its length; a
dealer who stacks all his deals a little is still found, by pooling his deals.
"""

from __future__ import annotations

import random

import pytest

from audit.auditor import audit_document
from audit.checks.stacking import stacked_findings
from audit.record.generate import cut, random_record, riffle
from audit.rules.cards import Card, Seat
from audit.stacking import StackingResult
from audit.stacking.decision import record_thresholds

SEATS = list(Seat)


def two_riffles(pack: list[Card], rng: random.Random) -> list[Card]:
    return cut(riffle(riffle(pack, rng), rng), rng)


def errors(report: dict[str, object]) -> list[tuple[str, int | None]]:
    return [
        (f["code"], f["hand"])
        for f in report["findings"]  # type: ignore[attr-defined]
        if f["severity"] == "error"
    ]


@pytest.mark.parametrize("dealt_order", [True, False], ids=["dealt_order", "hands"])
def test_a_turned_pile_is_found(dealt_order: bool) -> None:
    # every pack put together with each pile's first trick on top, then only cut: the
    # physical reading alone found none of these deals
    doc = random_record(random.Random(3), 10, prepare=cut, dealt_order=dealt_order, turn_piles=1.0)
    report = audit_document(doc)
    assert report["verdict"] == "irregular"
    assert [h for code, h in errors(report) if code == "STACKED_DEAL"] == list(range(3, 11))
    for h in report["hands"][2:]:
        assert h["stacking"]["evidence"]["direction"] == "first trick of each pile on top"


def test_piles_either_way_up_in_one_record_are_found() -> None:
    doc = random_record(random.Random(4), 12, prepare=cut, dealt_order=False, turn_piles=0.5)
    report = audit_document(doc)
    directions = {h["stacking"]["evidence"]["direction"] for h in report["hands"][2:]}
    assert len(directions) == 2  # both readings occur, and every deal is found
    assert [h for code, h in errors(report) if code == "STACKED_DEAL"] == list(range(3, 13))


def _results(ps: list[float]) -> list[tuple[Seat, StackingResult | None]]:
    return [(SEATS[i % 4], StackingResult(p, 0.0, "hands", {})) for i, p in enumerate(ps)]


def _irregular(ps: list[float], alpha: float) -> bool:
    results = _results(ps)
    infos = {n: {"p_value": p, "reference_hand": n, "evidence": {}} for n, p in enumerate(ps, 1)}
    return any(f.severity == "error" for f in stacked_findings(results, infos, None, alpha))


@pytest.mark.parametrize("deals", [1, 24, 200])
def test_the_rule_keeps_a_record_of_uniform_p_values_clean_but_alpha_of_the_time(
    deals: int,
) -> None:
    rng = random.Random(deals)
    alpha, records = 0.1, 800
    hits = sum(_irregular([rng.random() for _ in range(deals)], alpha) for _ in range(records))
    # at most alpha, within three standard errors; testing each deal at alpha would
    # make 200-deal records irregular every time
    assert hits / records <= alpha + 3 * (alpha * (1 - alpha) / records) ** 0.5


def test_the_thresholds_share_alpha_between_deals_and_pooled_dealers() -> None:
    rule = record_thresholds(_results([0.5] * 22), 0.001)
    assert (rule.deals, rule.dealers) == (22, 4)
    assert rule.deal == pytest.approx(0.0005 / 22) and rule.dealer == pytest.approx(0.0005 / 4)
    lone = record_thresholds([(Seat.N, StackingResult(0.5, 0.0, "hands", {}))], 0.001)
    assert (lone.deal, lone.dealer) == (0.001, 0.0)  # no dealer to pool: the whole alpha


def test_a_deal_below_alpha_that_misses_its_share_is_a_warning() -> None:
    ps = [0.5] * 40
    ps[10] = 0.0004  # below alpha = 0.001, far above 0.0005 / 40
    results = _results(ps)
    infos = {n: {"p_value": p, "reference_hand": n, "evidence": {}} for n, p in enumerate(ps, 1)}
    (finding,) = stacked_findings(results, infos, None, 0.001)
    assert (finding.code, finding.severity, finding.hand) == ("STACKED_DEAL", "warning", 11)
    assert finding.evidence["threshold"] == pytest.approx(0.0005 / 40)
    assert "evidence, not a finding" in finding.message


def test_honest_generated_records_are_clean_but_alpha_of_the_time() -> None:
    # alpha = 0.2 so that a handful of 50-hand records shows the rule: each hand tested
    # at alpha would make nearly every one of them irregular (1 - 0.8**48)
    rng = random.Random(13)
    verdicts = [
        audit_document(random_record(rng, 50, dealt_order=i % 2 == 0), alpha=0.2)["verdict"]
        for i in range(30)
    ]
    assert verdicts.count("irregular") <= 12  # P(more | 0.2) < 0.003


def test_a_dealer_who_stacks_every_deal_with_two_riffles_is_found() -> None:
    # 24 hands, 4-4-5, hands only, piles either way up: Sam (S) riffles twice and cuts
    for seed in range(6):
        doc = random_record(
            random.Random(200 + seed),
            24,
            dealt_order=False,
            prepare=two_riffles,
            stacker=Seat.S,
            turn_piles=0.5,
        )
        report = audit_document(doc)
        assert report["verdict"] == "irregular"
        flagged = [f for f in report["findings"] if f["severity"] == "error"]
        assert all(f.get("seat") == "S" or "Sam" in f["message"] for f in flagged)
