"""Disputes: audit a posted record, read a report (JSON or HTML), query reports."""

from __future__ import annotations

from datetime import UTC, date, datetime

from flask import Blueprint, Response, jsonify, request, url_for

from api import store
from api.errors import BadRequest
from api.routes import decode_cursor, encode_cursor, json_body, limit_arg, services

bp = Blueprint("audits", __name__)


def wants_html() -> bool:
    best = request.accept_mimetypes.best_match(["application/json", "text/html"])
    return (
        best == "text/html"
        and request.accept_mimetypes["text/html"] > request.accept_mimetypes["application/json"]
    )


@bp.post("/v1/audits")
def post_audit() -> tuple[Response, int, dict[str, str]]:
    """Audit a cayenne-record/1 document and keep the report."""
    s = services()
    doc = json_body()
    from audit.auditor import audit_document

    if not isinstance(doc, dict):
        raise BadRequest("$: a cayenne-record/1 document is a JSON object", details={"path": "$"})
    report = audit_document(doc)
    players = doc.get("players")
    names = [str(v) for v in players.values()] if isinstance(players, dict) else []
    table = doc.get("table")
    report_id = store.new_id("r")
    conn = s.db.connection()
    with conn.transaction():
        store.insert_report(
            conn,
            report_id,
            table_id=table if isinstance(table, str) else None,
            hand_number=None,
            report=report,
            record=doc,
            players=names,
            created_at=store.now_iso(s.config.clock()),
        )
    location = url_for("audits.get_audit", report_id=report_id)
    return jsonify({"id": report_id, "report": report}), 201, {"Location": location}


@bp.get("/v1/audits/<report_id>")
def get_audit(report_id: str) -> Response:
    summary, report, record = store.get_report(services().db.connection(), report_id)
    if wants_html():
        from audit.report_html import render_html

        return Response(render_html(report, record), mimetype="text/html")
    return jsonify(dict(summary, report=report))


@bp.get("/v1/audits/<report_id>/record")
def get_audit_record(report_id: str) -> Response:
    _, _, record = store.get_report(services().db.connection(), report_id)
    return jsonify(record)


def date_arg(name: str) -> str | None:
    raw = request.args.get(name)
    if raw is None or raw == "":
        return None
    try:
        if len(raw) == 10:
            return date.fromisoformat(raw).isoformat()
        moment = datetime.fromisoformat(raw.replace("Z", "+00:00"))
    except ValueError:
        raise BadRequest(
            f"{name}: {raw!r} is not an ISO 8601 date or time", details={"path": name}
        ) from None
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    try:
        utc = moment.astimezone(UTC)
    except OverflowError:  # a year 1 or 9999 time whose offset leaves the calendar
        raise BadRequest(
            f"{name}: {raw!r} is out of range: in UTC it must fall in the years 1 to 9999",
            details={"path": name},
        ) from None
    return utc.isoformat(timespec="milliseconds").replace("+00:00", "Z")


@bp.get("/v1/audits")
def list_audits() -> Response:
    """Report summaries, newest first, by table, player, finding code and date, paginated."""
    cursor = decode_cursor(request.args.get("cursor"), 2)
    q = store.ReportQuery(
        table=request.args.get("table") or None,
        player=request.args.get("player") or None,
        code=request.args.get("code") or None,
        since=date_arg("since"),
        until=date_arg("until"),
        limit=limit_arg(),
        cursor=None if cursor is None else (cursor[0], cursor[1]),
    )
    rows = store.query_reports(services().db.connection(), q)
    for r in rows:
        r["links"] = {"self": url_for("audits.get_audit", report_id=r["id"])}
    next_cursor = (
        encode_cursor([rows[-1]["created_at"], rows[-1]["id"]]) if len(rows) == q.limit else None
    )
    return jsonify({"reports": rows, "next_cursor": next_cursor})
