"""Pages for people: the landing page, tables (public state only), finished hands, reports."""

from __future__ import annotations

from typing import Any

from flask import Blueprint, Response, render_template

from api import rows
from api.routes import services
from api.routes.hands import NUMBER, load_hand
from api.schemas import spec
from api.seatings import private_tables
from audit.report.views import Cell, SeatView, TrickRow, card_view, holding_rows
from audit.rules.cards import Seat, parse_card

__all__ = ["bp", "diagram", "hand_page", "index", "page", "report_page", "table_page", "trick_rows"]

bp = Blueprint("pages", __name__)


def diagram(rec: dict[str, Any], seats: dict[Seat, str], names: dict[str, str]) -> list[SeatView]:
    """The deal diagram's seats of a finished hand's record: the player's name (the id
    as the tooltip), the holding with the ten written 10."""
    return [
        SeatView(
            s.name,
            f"{s.name} {names.get(seats[s], seats[s])}",
            seats[s],
            holding_rows([parse_card(c) for c in rec["deal"][s.name]], ten="10"),
        )
        for s in Seat
    ]


def trick_rows(tricks: list[dict[str, Any]]) -> list[TrickRow]:
    """The public state's tricks as rows of the shared trick table (columns N E S W)."""
    rows = []
    for n, t in enumerate(tricks, 1):
        leader = Seat.parse(t["leader"])
        cells = {
            Seat((leader + k) & 3): Cell(
                " ".join(
                    (["lead"] if k == 0 else [])
                    + (["win"] if Seat((leader + k) & 3).name == t.get("winner") else [])
                ),
                card_view(parse_card(c)),
                False,
                [],
            )
            for k, c in enumerate(t["cards"])
        }
        row = [cells.get(s, Cell("", None, False, [])) for s in Seat]
        rows.append(TrickRow(n, "", leader.name, row, t.get("winner") or "?"))
    return rows


def page(template: str, **context: Any) -> Response:
    html = render_template(template, **context)
    return Response(html, mimetype="text/html")


@bp.get("/")
@spec("Landing page", response="text/html")
def index() -> Response:
    conn = services().db.connection()
    private = services().tournaments.private_players
    # An event's tables are listed on its own pages (/tournaments), not here: a duplicate
    # event's are its players' own until it ends, and one of many tables would push the
    # ordinary tables off this list once it is over. Newest first.
    tables = rows.list_tables(conn, 200, "")
    in_events = services().tournaments.event_tables(conn, [t.id for t in tables])
    tables = [t for t in tables if t.id not in in_events]
    # nor a private table of people (joined by its invitation link)
    unlisted = private_tables(conn, [t.id for t in tables])
    tables = [t for t in tables if t.id not in unlisted]
    tables = sorted(tables, key=lambda t: (t.created_at, t.id), reverse=True)[:50]
    reports = [
        r
        for r in rows.query_reports(conn, rows.ReportQuery(limit=50))
        if r.get("table") is None or private(conn, r["table"]) is None
    ][:20]
    names = rows.player_names(conn, [p for t in tables for p in t.seats.values()])
    return page("index.html", tables=tables, reports=reports, names=names)


@bp.get("/tables/<table_id>")
@spec("Table page (public state)", response="text/html")
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
@spec("Hand page", response="text/html", path={"number": NUMBER})
def hand_page(table_id: str, number: int) -> Response:
    table, hand, state = load_hand(table_id, number)
    report = None
    if hand.report_id is not None:
        _, report, _ = rows.get_report(services().db.connection(), hand.report_id)
    record_hand = hand.record["hands"][0] if hand.record else None
    names = rows.player_names(services().db.connection(), list(table.seats.values()))
    tricks = [] if state is None else state.public.get("tricks", [])
    return page(
        "hand.html",
        names=names,
        table=table,
        hand=hand,
        public=None if state is None else state.public,
        rec=record_hand,
        seats_view=None if record_hand is None else diagram(record_hand, table.seats, names),
        cayenne=None
        if record_hand is None or record_hand.get("cayenne") is None
        else card_view(parse_card(record_hand["cayenne"])),
        trick_rows=trick_rows(tricks),
        report=report,
        seats=list(Seat),
    )


@bp.get("/reports/<report_id>")
@spec("Report page", response="text/html")
def report_page(report_id: str) -> Response:
    from api.routes.audits import BACK, notice_of
    from api.routes.tournaments import guard_table
    from audit.report.html import render_html

    summary, report, record = rows.get_report(services().db.connection(), report_id)
    if summary["table"] is not None:
        guard_table(summary["table"])
    html = render_html(report, record, notice=notice_of(summary), back=BACK)
    return Response(html, mimetype="text/html")
