from __future__ import annotations

from typing import Any

from audit.auditor import audit_document

from ..helpers import worked_example
from .common import clean_record, findings


def test_a_slip_is_reported_once_where_it_happened() -> None:
    doc = clean_record(12, seed=4)
    h = doc["hands"][3]["claimed"]
    wrong = (h["points"]["NS"] + 1) % 10
    h["points"]["NS"] = wrong
    # the players carry their slip on: later claims are recomputed from their own marker
    from audit.record.codec import load_record
    from audit.rules.replay import replay_hand
    from audit.rules.scoring import score_hand
    from audit.rules.sitting import hand_facts

    rec = load_record(doc)
    points = (wrong, h["points"]["EW"])
    games_before = None
    # rebuild the claims of the later hands from the players' (wrong) marker
    from audit.checks import AuditContext
    from audit.checks.score import check

    outs = [replay_hand(x) for x in rec.hands]
    # games before hand 5 as the players had them
    g = [0, 0]
    for x in doc["hands"][:4]:
        for won in x["claimed"]["games"]:
            g[0 if won["side"] == "NS" else 1] += 1
            if max(g) >= 4:
                g = [0, 0]
    games_before = (g[0], g[1])
    for i in range(4, 12):
        facts = hand_facts(rec.hands[i], outs[i], rec.ruleset)
        assert facts is not None
        r = score_hand(points, games_before, facts)
        doc["hands"][i]["claimed"] = r.score.to_json()
        points, games_before = r.score.points, r.games_after
    found = findings(doc, "SCORE_MISMATCH")
    assert [f["hand"] for f in found] == [4]
    assert found[0]["evidence"]["claimed"]["points"]["NS"] == wrong
    assert found[0]["evidence"]["fields"] == ["points"]
    assert check(AuditContext(load_record(doc), outs)) and True


def test_the_report_scores_are_the_true_scores_from_the_start() -> None:
    doc = worked_example()
    true = audit_document(doc)
    doc["hands"][0]["claimed"]["games"] = [{"side": "NS", "value": 3}]
    report = audit_document(doc)
    (f,) = [f for f in report["findings"] if f["code"] == "SCORE_MISMATCH"]
    assert f["hand"] == 1 and f["evidence"]["expected"]["games"] == [{"side": "NS", "value": 2}]
    assert report["rubbers"] == true["rubbers"]
    # the true score and its explanation do not move; the claim is shown beside them
    assert report["hands"][0]["claimed"]["games"] == [{"side": "NS", "value": 3}]
    for h in (*report["hands"], *true["hands"]):
        del h["claimed"]
    assert report["hands"] == true["hands"]


def test_bonuses_are_checked() -> None:
    doc = worked_example()
    doc["hands"][2]["claimed"]["bonuses"] = [{"side": "NS", "kind": "rubber", "points": 8}]
    (f,) = findings(doc, "SCORE_MISMATCH")
    assert f["hand"] == 3 and f["evidence"]["fields"] == ["bonuses"]


def _revoke_record(claim_from: str) -> dict[str, Any]:
    """The revoke hand of test_play_findings (S revokes at trick 2; N-S take all 13 and
    hold the five honours, spades worth 1), E-W choosing the penalty ``add``; claimed as
    the rules give (``"rules"``) or without the penalty."""
    from ..helpers import record
    from .test_play_findings import revoke_hand

    hand = revoke_hand()
    hand["calls"] = [{"seat": "W", "call": "S"}]
    hand["cayenne"] = "7H"  # spades worth 1 a trick
    hand["penalties"] = [{"trick": 2, "seat": "S", "option": "add"}]
    doc = record(hand)
    true = audit_document(doc)["hands"][0]["score"]
    if claim_from == "rules":
        doc["hands"][0]["claimed"] = true
    else:
        # N-S 7 over the book + 6 for honours, stopped at 9; nothing for E-W
        doc["hands"][0]["claimed"] = {"points": {"NS": 9, "EW": 0}, "games": [], "bonuses": []}
    return doc


def test_a_mismatch_says_why_and_comes_after_the_revoke_that_caused_it() -> None:
    report = audit_document(_revoke_record("no penalty"))
    assert report["hands"][0]["score"]["points"] == {"NS": 9, "EW": 3}
    codes = [f["code"] for f in report["findings"] if f["hand"] == 1]
    assert codes.index("REVOKE") < codes.index("SCORE_MISMATCH") == len(codes) - 1
    (f,) = [f for f in report["findings"] if f["code"] == "SCORE_MISMATCH"]
    assert f["evidence"]["slip"] == "penalty_not_applied"
    assert f["message"] == (
        "hand 1: the claim is 3 less for E-W than the rules give: the recorded revoke "
        "penalty (add) was not applied to S's revoke at trick 2 "
        "(marker 9-0 claimed, 9-3 by the rules)"
    )


def test_the_default_penalty_not_applied_is_named() -> None:
    from audit.checks.score_reason import explain_mismatch
    from audit.rules.cards import Seat, Side
    from audit.rules.contract import Contract
    from audit.rules.explain import RevokeAt
    from audit.rules.model import Score
    from audit.rules.ruleset import DEFAULT_RULESET
    from audit.rules.scoring import HandFacts

    # E-W take 9 tricks in hearts (x4) but E revoked: the default (tricks) leaves them 6
    facts = HandFacts(
        Contract.H,
        4,
        (4, 9),
        revokes=((Side.EW, "tricks"),),
        revokes_at=(RevokeAt(5, Seat.E, False),),
    )
    claim = Score(points=(0, 9))  # 3 over the book x 4 = 12, stopped at 9
    reason = explain_mismatch((0, 0), (0, 0), facts, DEFAULT_RULESET, claim)
    assert reason is not None and reason.slip == "penalty_not_applied"
    assert (
        reason.text
        == "the default revoke penalty (tricks) was not applied to E's revoke at trick 5"
    )


def test_a_claim_as_the_rules_give_is_not_a_mismatch() -> None:
    assert findings(_revoke_record("rules"), "SCORE_MISMATCH") == []


def test_the_amount_says_who_the_claim_favours() -> None:
    doc = worked_example()
    doc["hands"] = doc["hands"][:1]  # a slip carried on would change the later hands
    doc["hands"][0]["claimed"]["points"] = {"NS": 6, "EW": 8}  # A-B's honours counted
    (f,) = findings(doc, "SCORE_MISMATCH")
    assert f["message"].startswith(
        "hand 1: the claim is 8 more for E-W than the rules give: honours were scored "
        "by a side whose adversaries went out by cards"
    )
    assert f["evidence"]["slip"] == "honours_when_out"


def test_a_claim_no_slip_explains_still_gives_the_difference() -> None:
    doc = worked_example()
    doc["hands"] = doc["hands"][:1]
    doc["hands"][0]["claimed"]["points"] = {"NS": 7, "EW": 0}
    (f,) = findings(doc, "SCORE_MISMATCH")
    assert f["evidence"]["slip"] is None and f["evidence"]["reason"] is None
    assert f["message"] == (
        "hand 1: the claim is 1 more for N-S than the rules give "
        "(marker 7-0 claimed, 6-0 by the rules)"
    )
