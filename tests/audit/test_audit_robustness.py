"""Any record that validates can be audited and reported: mutated records never crash."""

from __future__ import annotations

import contextlib
import copy
import random
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from audit.auditor import audit_document
from audit.errors import RecordError
from audit.record.generate import cut, random_record
from audit.report.html import render_html
from audit.report.text import render_text
from audit.rules.cards import CARD_TEXT

BASES = [
    random_record(random.Random(1), 5, prepare=cut),
    random_record(random.Random(2), 5, dealt_order=False),
]
for b in BASES:
    b["hands"][0]["collected"] = [c for t in b["hands"][0]["tricks"] for c in t["cards"]]
    b["hands"][1]["penalties"] = [{"trick": 2, "seat": "E", "option": "deduct"}]

cards = st.sampled_from(CARD_TEXT)
seats = st.sampled_from(["N", "E", "S", "W"])


@st.composite
def mutation(draw: Any) -> tuple[str, int, Any]:
    kind = draw(
        st.sampled_from(
            [
                "card_in_trick",
                "drop_card",
                "drop_trick",
                "leader",
                "dealer",
                "deal_card",
                "drop_deal_card",
                "calls",
                "gathered",
                "collected",
                "dealt_order",
                "claimed",
                "pack",
                "ace_high",
                "penalty",
                "no_contract",
                "cayenne",
                "extra_trick",
            ]
        )
    )
    return (
        kind,
        draw(st.integers(0, 4)),
        (
            draw(cards),
            draw(seats),
            draw(st.integers(0, 12)),
            draw(st.integers(1, 13)),
            draw(st.integers(0, 9)),
        ),
    )


def apply(doc: dict[str, Any], m: tuple[str, int, Any]) -> None:
    kind, h, (card, seat, i, n, p) = m
    hand = doc["hands"][h]
    tricks = hand["tricks"]
    if kind == "card_in_trick":
        tricks[i]["cards"][n % 4] = card
    elif kind == "drop_card":
        tricks[i]["cards"].pop()
    elif kind == "drop_trick":
        tricks.pop(i)
    elif kind == "leader":
        tricks[i]["leader"] = seat
    elif kind == "dealer":
        hand["dealer"] = seat
    elif kind == "deal_card":
        hand["deal"][seat][i] = card
    elif kind == "drop_deal_card":
        hand["deal"][seat].pop(i)
    elif kind == "calls":
        hand["calls"] = [{"seat": seat, "call": "pass"}, {"seat": seat, "call": "pass"}][
            : 1 + n % 2
        ] + ([{"seat": seat, "call": ["S", "grand", "nullo"][i % 3]}] if n % 3 else [])
    elif kind == "gathered" and "gathered" in hand:
        hand["gathered"]["NS"] = [n, n, p + 1]
    elif kind == "collected":
        hand["collected"] = [card] * (n + 40)
    elif kind == "dealt_order" and "dealt_order" in hand:
        hand["dealt_order"][i] = card
    elif kind == "claimed" and "claimed" in hand:
        hand["claimed"]["points"]["NS"] = p
        hand["claimed"]["games"] = [{"side": "EW", "value": 1 + i % 4}] * (n % 5)
    elif kind == "pack":
        hand["pack"] = n % 2
    elif kind == "ace_high":
        tricks[i]["ace_high"] = [card]
    elif kind == "penalty":
        hand["penalties"] = [
            {"trick": n, "seat": seat, "option": ["tricks", "deduct", "add"][i % 3]}
        ] * 2
    elif kind == "no_contract":
        hand["calls"] = [{"seat": seat, "call": "pass"}]
    elif kind == "cayenne":
        hand["cayenne"] = card
    elif kind == "extra_trick":
        tricks.append({"leader": seat, "cards": [card] * 4})


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(base=st.sampled_from([0, 1]), muts=st.lists(mutation(), min_size=1, max_size=4))
def test_the_auditor_reports_on_any_valid_record(
    base: int, muts: list[tuple[str, int, Any]]
) -> None:
    doc = copy.deepcopy(BASES[base])
    for m in muts:
        with contextlib.suppress(IndexError, KeyError):
            apply(doc, m)
    try:
        report = audit_document(doc)
    except RecordError:
        return
    assert report["verdict"] in ("clean", "irregular")
    assert len(report["hands"]) == len(doc["hands"])
    assert "Rubber" in render_text(report) or not report["rubbers"]
    assert render_html(report, doc).endswith("</html>")
