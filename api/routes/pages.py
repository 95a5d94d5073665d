"""Pages for people: the landing page, tables (public state only), finished hands, reports."""

from __future__ import annotations

from typing import Any

from flask import Blueprint, Response, render_template

from api import rows
from api.routes import services
from api.routes.hands import load_hand
from audit.rules.cards import RANK_LETTERS, SUIT_LETTERS, SUIT_SYMBOLS, Seat, parse_card

bp = Blueprint("pages", __name__)


def by_suit(cards: list[str]) -> list[tuple[str, str, bool]]:
    """(symbol, ranks high to low, red) per suit, for a hand diagram."""
    parsed = sorted((parse_card(c) for c in cards), reverse=True)
    suit_rows = []
    for i, letter in enumerate(SUIT_LETTERS):
        ranks = "".join(RANK_LETTERS[c % 13] for c in parsed if c // 13 == i)
        suit_rows.append((SUIT_SYMBOLS[i], ranks.replace("T", "10") or "\u2014", letter in "HD"))
    return suit_rows


def page(template: str, **context: Any) -> Response:
    html = render_template(template, by_suit=by_suit, **context)
    return Response(html, mimetype="text/html")


@bp.get("/")
def index() -> Response:
    conn = services().db.connection()
    tables = rows.list_tables(conn, 50, "")
    reports = rows.query_reports(conn, rows.ReportQuery(limit=20))
    names = rows.player_names(conn, [p for t in tables for p in t.seats.values()])
    return page("index.html", tables=tables, reports=reports, names=names)


@bp.get("/tables/<table_id>")
def table_page(table_id: str) -> Response:
    conn = services().db.connection()
    table = rows.get_table(conn, table_id)
    _, hand, state = load_hand(table_id, table.hand_count)
    hands = rows.list_hands(conn, table_id)
    return page(
        "table.html",
        names=rows.player_names(conn, list(table.seats.values())),
        table=table,
        hand=hand,
        public=None if state is None else state.public,
        hands=hands,
        seats=list(Seat),
    )


@bp.get("/tables/<table_id>/hands/<int:number>")
def hand_page(table_id: str, number: int) -> Response:
    table, hand, state = load_hand(table_id, number)
    report = None
    if hand.report_id is not None:
        _, report, _ = rows.get_report(services().db.connection(), hand.report_id)
    record_hand = hand.record["hands"][0] if hand.record else None
    names = rows.player_names(services().db.connection(), list(table.seats.values()))
    return page(
        "hand.html",
        names=names,
        table=table,
        hand=hand,
        public=None if state is None else state.public,
        rec=record_hand,
        report=report,
        seats=list(Seat),
    )


@bp.get("/reports/<report_id>")
def report_page(report_id: str) -> Response:
    from api.routes.audits import notice_of
    from audit.report.html import render_html

    summary, report, record = rows.get_report(services().db.connection(), report_id)
    return Response(render_html(report, record, notice=notice_of(summary)), mimetype="text/html")
