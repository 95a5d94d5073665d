from __future__ import annotations

from typing import Any

from ..helpers import worked_example
from .common import findings


def gathered(doc: dict[str, Any]) -> dict[str, list[int]]:
    g: dict[str, list[int]] = doc["hands"][0]["gathered"]
    return g


def test_the_last_trick_placed_under_the_first() -> None:
    doc = worked_example()
    ns = gathered(doc)["NS"]
    ns.insert(0, ns.pop())  # the book's example of a disarrangement
    (f,) = findings(doc, "TRICKS_OUT_OF_ORDER")
    assert f["hand"] == 1 and "not in the order won" in f["message"]


def test_a_trick_gathered_by_the_side_that_did_not_win_it() -> None:
    doc = worked_example()
    g = gathered(doc)
    g["EW"].append(g["NS"].pop())
    f = findings(doc, "TRICKS_OUT_OF_ORDER")
    assert any("won by NS" in x["message"] for x in f)


def test_missing_and_twice() -> None:
    doc = worked_example()
    g = gathered(doc)
    g["NS"][1] = g["NS"][0]
    msgs = [f["message"] for f in findings(doc, "TRICKS_OUT_OF_ORDER")]
    assert any("twice" in m for m in msgs) or any("in the order won" in m for m in msgs)
    assert any("not gathered" in m for m in msgs)


def test_collected_pack_with_a_trick_broken_up() -> None:
    doc = worked_example()
    c = doc["hands"][0]["collected"]
    c[1], c[10] = c[10], c[1]
    f = findings(doc, "TRICKS_OUT_OF_ORDER")
    assert f and "split up" in f[0]["message"]


def test_collected_pack_as_two_piles_in_order_is_clean() -> None:
    doc = worked_example()
    assert findings(doc, "TRICKS_OUT_OF_ORDER") == []
    c = doc["hands"][0]["collected"]
    doc["hands"][0]["collected"] = c[-4:] + c[:-4]  # a pile's last trick moved to the top
    assert findings(doc, "TRICKS_OUT_OF_ORDER")


def test_collected_piles_may_read_either_way_up_but_not_mixed() -> None:
    doc = worked_example()
    hand = doc["hands"][0]
    tricks = [t["cards"] for t in hand["tricks"]]
    ns, ew = hand["gathered"]["NS"], hand["gathered"]["EW"]
    face_down = [c for n in reversed(ns) for c in tricks[n - 1]] + [
        c for n in reversed(ew) for c in tricks[n - 1]
    ]
    hand["collected"] = face_down
    assert findings(doc, "TRICKS_OUT_OF_ORDER") == []
    mixed = [c for n in reversed(ns) for c in tricks[n - 1]] + [
        c for n in ew for c in tricks[n - 1]
    ]
    hand["collected"] = mixed
    assert findings(doc, "TRICKS_OUT_OF_ORDER")


def test_out_of_order_links_to_the_next_deal_from_that_pack() -> None:
    from audit.auditor import audit_document
    from audit.report.html import render_html
    from audit.report.text import render_text

    doc = worked_example()
    ns = gathered(doc)["NS"]
    ns.insert(0, ns.pop())
    report = audit_document(doc)
    (f,) = [f for f in report["findings"] if f["code"] == "TRICKS_OUT_OF_ORDER"]
    nxt = f["evidence"]["next_deal"]
    # hand 1 used pack 0; hand 3 is the next deal from it, and its stacking test is there
    assert nxt["hand"] == 3 and nxt["stacking"] == "/hands/2/stacking"
    assert nxt["p_value"] == report["hands"][2]["stacking"]["p_value"]
    text = render_text(report)
    assert "-> see the stacking test of hand 3, the next deal from this pack (p = " in text
    html = render_html(report, doc)
    assert '<a href="#hand-3-stacking" data-role="next-deal">' in html
    assert 'id="hand-3-stacking"' in html


def test_no_link_after_the_last_deal_from_a_pack() -> None:
    doc = worked_example()
    doc["hands"][2]["gathered"]["NS"].reverse()
    (f,) = findings(doc, "TRICKS_OUT_OF_ORDER")
    assert f["hand"] == 3 and "next_deal" not in f["evidence"]
