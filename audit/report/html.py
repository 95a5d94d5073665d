"""The audit report as a self-contained HTML page, for people.

A summary, the findings linking to their hand, and for each hand the deal as a
four-hand diagram, the cayenne card and the contract, the tricks in order with the
leader and the winner marked and irregular cards highlighted, the gathering, and the
score sheet in the book's layout. Inline CSS only: the page fetches nothing.

The page is ``templates/report.html``, rendered with jinja2 and autoescaping; the hand
diagram, the trick table and the score sheet are macros of ``templates/cards.html``,
which the service's pages import too. This module only prepares the values.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from functools import cache
from typing import Any

import jinja2

from audit.record.codec import load_record
from audit.report.explain import (
    claim_agrees,
    claim_line,
    ended_by_claim,
    next_deal_pointer,
    score_words,
)
from audit.report.views import Cell, SeatView, TrickRow, card_view, holding_rows
from audit.rules.cards import Seat
from audit.rules.explain import alpha_note
from audit.rules.model import HandRecord, Record
from audit.rules.replay import replay_hand

__all__ = ["environment", "html_chunks", "render_html", "template_loader"]


def template_loader() -> jinja2.BaseLoader:
    """The loader of ``audit/report/templates`` (the service's pages chain it after theirs)."""
    return jinja2.PackageLoader("audit.report", "templates")


@cache
def environment() -> jinja2.Environment:
    """The report's template environment: the package's templates, autoescaped."""
    return jinja2.Environment(
        loader=template_loader(),
        autoescape=True,
        undefined=jinja2.StrictUndefined,
        keep_trailing_newline=False,
    )


def _seats(hand: HandRecord, names: dict[str, str]) -> list[SeatView]:
    seats = []
    for seat in Seat:
        who = names.get(seat.name, "")
        dealer = " (dealer)" if seat == hand.dealer else ""
        heading = f"{seat.name}{' ' + who if who else ''}{dealer}"
        seats.append(SeatView(seat.name, heading, "", holding_rows(hand.deal[seat])))
    return seats


def _tricks(hand: HandRecord, winners: list[str], marks: set[tuple[int, str]]) -> list[TrickRow]:
    rows = []
    for i, t in enumerate(hand.tricks):
        n = i + 1
        cells: dict[str, Cell] = {}
        for k, c in enumerate(t.cards):
            seat = Seat((t.leader + k) & 3).name
            cls = []
            if k == 0:
                cls.append("lead")
            if i < len(winners) and winners[i] == seat:
                cls.append("win")
            if (n, seat) in marks:
                cls.append("irregular")
            back = [card_view(x.card) for x in t.corrected if x.seat.name == seat]
            high = bool(t.ace_high and c in t.ace_high)
            cells[seat] = Cell(" ".join(cls), card_view(c), high, back)
        row = [cells.get(s.name, Cell("", None, False, [])) for s in Seat]
        won = winners[i] if i < len(winners) else "?"
        rows.append(TrickRow(n, f"hand-{hand.number}-trick-{n}", t.leader.name, row, won))
    return rows


def _finding(f: dict[str, Any]) -> dict[str, Any]:
    """A finding with its link to its hand and trick, and a TRICKS_OUT_OF_ORDER
    finding's link to the next deal's stacking test."""
    view = dict(f, anchor="", where="", pointer=None, next_anchor="")
    if f.get("hand") is not None:
        view["anchor"] = f"hand-{f['hand']}" + (f"-trick-{f['trick']}" if f.get("trick") else "")
        view["where"] = f"hand {f['hand']}" + (f", trick {f['trick']}" if f.get("trick") else "")
    pointer = next_deal_pointer(f)
    if pointer is not None:
        nxt = f["evidence"]["next_deal"]
        view["pointer"] = pointer
        view["next_anchor"] = f"hand-{nxt['hand']}" + ("-stacking" if nxt.get("stacking") else "")
    view.setdefault("seat", None)
    return view


def _hand(
    hand: HandRecord, info: dict[str, Any], names: dict[str, str], findings: list[dict[str, Any]]
) -> dict[str, Any]:
    marks = {(f["trick"], f["seat"]) for f in findings if f.get("trick") and f.get("seat")}
    void = None
    if hand.void is not None:
        note = f": {hand.void.note}" if hand.void.note else ""
        void = hand.void.reason.replace("_", " ") + note
    claim = claim_line(info)
    winners = [w.name for w in replay_hand(hand).winners]
    return {
        "number": hand.number,
        "dealer": hand.dealer.name,
        "void": void,
        "seats": _seats(hand, names) if void is None or any(hand.deal) else None,
        "cayenne": None if hand.cayenne is None else card_view(hand.cayenne),
        "calls": ", ".join(f"{s.name}: {c}" for s, c in hand.calls),
        "contract": info["contract"] or "none",
        "unit": info["unit"],
        "tricks": _tricks(hand, winners, marks) if hand.tricks else None,
        "gathered": None
        if hand.gathered is None
        else (str(list(hand.gathered[0])), str(list(hand.gathered[1]))),
        "collected": None if hand.collected is None else [card_view(c) for c in hand.collected],
        "info": {"tricks": info.get("tricks"), "explanation": info.get("explanation")},
        "ended": ended_by_claim(info),
        "score_words": score_words(info["score"]) if info.get("score") else None,
        "claim": claim[0].upper() + claim[1:] if claim else None,
        "claim_agrees": claim_agrees(info) if claim else True,
        "stacking": info.get("stacking"),
        "findings": findings,
    }


def render_html(
    report: dict[str, Any],
    doc: Any,
    title: str | None = None,
    notice: str | None = None,
    back: tuple[str, str] | None = None,
) -> str:
    """The report as one HTML page; ``doc`` is the audited record (JSON or typed).

    ``notice`` is shown first, in a box (the service marks uploaded records with it);
    ``back`` is a link (href, text) above it, the way back to the service's pages."""
    record = doc if isinstance(doc, Record) else load_record(doc)
    heading = title or str(record.meta.get("event") or "Cayenne audit report")
    return "".join(html_chunks(report, record.hands, record.players, heading, notice, back))


def html_chunks(
    report: dict[str, Any],
    hands: Iterable[HandRecord],
    players: Mapping[str, str] | None,
    heading: str,
    notice: str | None = None,
    back: tuple[str, str] | None = None,
) -> Iterator[str]:
    """:func:`render_html`'s page in pieces, as it is made. ``hands`` (the record's, in
    order) and ``report["hands"]`` are walked once, side by side, so either may be built
    as it is asked for; ``report["hands"]`` need only be counted before."""
    names = dict(players or {})
    labels = {
        "NS": "N-S" + (f" ({names.get('N', '')}, {names.get('S', '')})" if names else ""),
        "EW": "E-W" + (f" ({names.get('E', '')}, {names.get('W', '')})" if names else ""),
    }
    findings = [_finding(f) for f in report["findings"]]
    by_hand: dict[int, list[dict[str, Any]]] = {}
    for f in findings:
        if f.get("hand") is not None:
            by_hand.setdefault(f["hand"], []).append(f)
    errors = sum(1 for f in findings if f["severity"] == "error")
    views = (
        _hand(hand, info, names, by_hand.get(hand.number, []))
        for hand, info in zip(hands, report["hands"], strict=True)
    )
    return (
        environment()
        .get_template("report.html")
        .generate(
            report=report,
            heading=heading,
            notice=notice,
            back=back,
            errors=errors,
            others=len(findings) - errors,
            alpha=alpha_note(report["alpha"]) if "alpha" in report else None,
            findings=findings,
            labels=labels,
            hands=views,
        )
    )
