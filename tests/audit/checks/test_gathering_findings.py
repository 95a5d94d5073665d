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
