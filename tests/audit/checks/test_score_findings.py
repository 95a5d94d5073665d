from __future__ import annotations

from audit.auditor import audit_document

from ..helpers import worked_example
from .common import clean_record, findings


def test_a_slip_is_reported_once_where_it_happened() -> None:
    doc = clean_record(12, seed=4)
    h = doc["hands"][3]["claimed"]
    wrong = (h["points"]["NS"] + 1) % 10
    h["points"]["NS"] = wrong
    # the players carry their slip on: later claims are recomputed from their own marker
    from audit.record import load_record
    from audit.replay import replay_hand
    from audit.scoring import score_hand
    from audit.sitting import hand_facts

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
