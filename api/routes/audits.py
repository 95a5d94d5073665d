"""Disputes: audit a posted record, read a report (JSON or HTML), query reports; score an
event played over the table from its uploaded records."""

from __future__ import annotations

import hashlib
from datetime import UTC, date, datetime
from typing import Any

from flask import Blueprint, Response, jsonify, request, url_for

from api import rows
from api.auth import is_admin, require_admin
from api.database import Connection
from api.errors import BadRequest
from api.ratelimit import Rate, take
from api.routes import decode_cursor, encode_cursor, limit_arg, request_body, services
from api.routes.tournaments import guard_table
from api.schemas import LIMIT, NULLABLE_STR, OBJ, Schema, listing, param, spec
from audit.errors import RecordError
from audit.log.errors import EventError
from audit.log.events import canonical_json

__all__ = [
    "RECORD_UPLOAD",
    "REPORT_SUMMARY",
    "SCORES",
    "UPLOADED",
    "UPLOAD_NOTICE",
    "bool_arg",
    "bp",
    "client_address",
    "date_arg",
    "get_audit",
    "get_audit_record",
    "list_audits",
    "notice_of",
    "post_audit",
    "post_event_scores",
    "take_upload",
    "upload_id",
    "wants_html",
    "wants_text",
]


BACK = ("/", "← Cayenne Fair-Play home")
"""The way back from a report served as a page to the service's own pages."""

bp = Blueprint("audits", __name__)

REPORT_SUMMARY: Schema = {
    "type": "object",
    "required": ["id", "verdict", "created_at"],
    "properties": {
        "id": {"type": "string"},
        "table": NULLABLE_STR,
        "hand": {"type": ["integer", "null"]},
        "verdict": {"type": "string"},
        "created_at": {"type": "string"},
        "source": {
            "type": "string",
            "enum": ["service", "upload"],
            "description": "service: a hand dealt and logged here; upload: a record sent to "
            "POST /v1/audits, audited as sent (never linked to a table of the service)",
        },
        "listed": {"type": "boolean", "description": "whether listings show it"},
        "codes": {"type": "array", "items": {"type": "string"}},
        "links": OBJ,
    },
}
UPLOADED: Schema = {
    **REPORT_SUMMARY,
    "required": ["id", "source", "listed", "report"],
    "properties": {**REPORT_SUMMARY["properties"], "report": OBJ},
}
RECORD_UPLOAD: Schema = {
    "type": "object",
    "description": "a cayenne-record/1 document is a JSON object",
}
"""An uploaded record: any object here; the auditor checks it (422 INVALID_RECORD)."""
SCORES: Schema = {
    "type": "object",
    "required": ["records"],
    "properties": {
        "records": {
            "type": "array",
            "minItems": 1,
            "description": "a non-empty list of cayenne-record/1 documents or uploaded record ids",
            "items": {"oneOf": [OBJ, {"type": "string", "pattern": "^u-"}]},
        }
    },
}
_REPORT_ID = {"report_id": {"type": "string"}}


def wants_html() -> bool:
    best = request.accept_mimetypes.best_match(["application/json", "text/html"])
    return (
        best == "text/html"
        and request.accept_mimetypes["text/html"] > request.accept_mimetypes["application/json"]
    )


UPLOAD_NOTICE = (
    "Uploaded record: audited by this service exactly as it was sent to it. It is not a "
    "hand that this service dealt or logged, and its table, players and event are the "
    "uploader's claims."
)


def upload_id(doc: dict[str, Any]) -> str:
    """The id of an uploaded record's report: ``u-`` and 32 hex digits of the SHA-256 of its
    RFC 8785 canonical JSON, so the same record always has the same report."""
    try:
        digest = hashlib.sha256(canonical_json(doc)).hexdigest()
    except EventError as exc:  # a value the canonical form has no place for (a fraction)
        raise RecordError(exc.message.split(":", 1)[0].lstrip("$."), "not a valid value") from None
    return "u-" + digest[:32]


def client_address() -> str:
    return request.remote_addr or "unknown"


def take_upload(conn: Connection) -> None:
    """Take a token from the client's upload bucket (429 when it is empty); the
    administrator is not limited."""
    s = services()
    if not is_admin(s.config):
        rate = Rate(s.config.upload_burst, s.config.upload_per_hour)
        take(conn, "upload", client_address(), rate, s.config.clock())


@bp.post("/v1/audits")
@spec(
    "Audit an uploaded cayenne-record/1 document. The report is unlisted unless the "
    "administrator asks for listed=true, marked source=upload, never linked to a table, and "
    "its id comes from the record's canonical hash: the same record again answers 200 with "
    "the same report. Uploads are rate-limited per client address (429 with Retry-After).",
    body=RECORD_UPLOAD,
    status=201,
    response=UPLOADED,
    errors=(401, 403, 422, 429),
    query=(
        param(
            "listed",
            "query",
            {"type": "string", "enum": ["true", "false", "1", "0", ""]},
            desc="list the report (administrator only)",
        ),
    ),
    responses={
        200: {
            "description": "the same record was uploaded before: its report",
            "content": {"application/json": {"schema": UPLOADED}},
        }
    },
)
def post_audit() -> tuple[Response, int, dict[str, str]]:
    """Audit an uploaded cayenne-record/1 document and keep the report, unlisted."""
    s = services()
    doc = request_body()
    from audit.auditor import audit_document

    listed = bool_arg("listed")
    if listed:
        require_admin(s.config)
    conn = s.db.connection()
    report_id = upload_id(doc)
    location = url_for("audits.get_audit", report_id=report_id)
    if rows.has_report(conn, report_id):  # the same record again: the same report
        summary, report, _ = rows.get_report(conn, report_id)
        return jsonify(dict(summary, report=report)), 200, {"Location": location}
    take_upload(conn)
    report = audit_document(doc)
    players = doc.get("players")
    names = [str(v) for v in players.values()] if isinstance(players, dict) else []
    with conn.transaction():
        if rows.has_report(conn, report_id):  # uploaded meanwhile by someone else
            summary, report, _ = rows.get_report(conn, report_id)
            return jsonify(dict(summary, report=report)), 200, {"Location": location}
        rows.insert_report(
            conn,
            report_id,
            # Never linked to a table of the service, whatever the record names.
            table_id=None,
            hand_number=None,
            report=report,
            record=doc,
            players=names,
            created_at=rows.now_iso(s.config.clock()),
            source=rows.UPLOAD,
            listed=listed,
        )
    summary, report, _ = rows.get_report(conn, report_id)
    return jsonify(dict(summary, report=report)), 201, {"Location": location}


EVENT_RECORDS_MAX = 2000
EVENT_UPLOADED_BYTES_MAX = 32 * 1024 * 1024
"""The stored records one request may name in all (their JSON text): what it may cost to
load and score, whatever the records are (an event of 2000 tables is far below)."""


@bp.post("/v1/tournaments/scores")
@spec(
    "Score an event played over the table: the cayenne-standings/1 document of `fairplay "
    "tournament score`, from its table records, each a cayenne-record/1 document or the id "
    "of one uploaded with POST /v1/audits. Nothing is stored. Rate-limited per client "
    "address like uploads (429 with Retry-After).",
    body=SCORES,
    errors=(400, 422, 429),
)
def post_event_scores() -> Response:
    """Score an event played over the table (docs/tournaments.md, "Over the table"): the
    ``cayenne-standings/1`` document that ``fairplay tournament score`` prints, from the
    event's table records. Each item of ``records`` is a cayenne-record/1 document, or the
    id of one uploaded before with ``POST /v1/audits`` (``u-...``), so an event too big for
    one request goes up a table at a time. Nothing is stored: the same records give the
    same document. JSON by default; ``text/html`` or ``text/plain`` by ``Accept``."""
    from audit.tournament.render import render_html, render_text
    from audit.tournament.score import score_event

    s = services()
    records = request_body()["records"]
    if len(records) > EVENT_RECORDS_MAX:
        raise BadRequest(
            f"records: at most {EVENT_RECORDS_MAX} records an event",
            details={"path": "records"},
        )
    conn = s.db.connection()
    take_upload(conn)
    # Every id checked, and its record's size summed, before any record is loaded: one
    # id named many times (or many large records) cost a load each before the refusal.
    first: dict[str, int] = {}
    total = 0
    for i, item in enumerate(records):
        if not isinstance(item, str):
            continue
        if item in first:
            raise BadRequest(
                f"records[{i}]: {item!r} is named already (records[{first[item]}])",
                details={"path": f"records[{i}]"},
            )
        first[item] = i
        size = rows.record_size(conn, item) if item.startswith("u-") else None
        if size is None:
            raise BadRequest(
                f"records[{i}]: {item!r} is not an uploaded record's id (POST /v1/audits)",
                details={"path": f"records[{i}]"},
            )
        total += size
        if total > EVENT_UPLOADED_BYTES_MAX:
            raise BadRequest(
                f"records[{i}]: the uploaded records of one request are at most "
                f"{EVENT_UPLOADED_BYTES_MAX} bytes",
                details={"path": f"records[{i}]", "limit": EVENT_UPLOADED_BYTES_MAX},
            )
    docs: list[tuple[str, Any]] = []
    for i, item in enumerate(records):
        if isinstance(item, str):
            docs.append((item, rows.get_report(conn, item)[2]))
        elif isinstance(item, dict):
            docs.append((f"records[{i}]", item))
        else:
            raise BadRequest(
                f"records[{i}]: a cayenne-record/1 document or an uploaded record's id",
                details={"path": f"records[{i}]"},
            )
    doc = score_event(docs)  # a RecordError or EventError names the record and the field
    if wants_html():
        return Response(render_html(doc), mimetype="text/html")
    if wants_text():
        return Response(render_text(doc), mimetype="text/plain")
    return jsonify(doc)


def bool_arg(name: str) -> bool:
    raw = request.args.get(name)
    if raw is None or raw in ("", "false", "0"):
        return False
    if raw in ("true", "1"):
        return True
    raise BadRequest(f"{name}: {raw!r} is not true or false", details={"path": name})


def wants_text() -> bool:
    best = request.accept_mimetypes.best_match(["application/json", "text/html", "text/plain"])
    return best == "text/plain" and request.accept_mimetypes["text/plain"] > max(
        request.accept_mimetypes["application/json"], request.accept_mimetypes["text/html"]
    )


def notice_of(summary: dict[str, Any]) -> str | None:
    return UPLOAD_NOTICE if summary.get("source") == rows.UPLOAD else None


@bp.get("/v1/audits/<report_id>")
@spec(
    "A report",
    path=_REPORT_ID,
    responses={
        200: {
            "description": "the report as JSON, as the HTML page when the client prefers "
            "text/html, as text when it prefers text/plain; an uploaded record's report says "
            "so in each",
            "content": {
                "application/json": {"schema": UPLOADED},
                "text/html": {"schema": {"type": "string"}},
                "text/plain": {"schema": {"type": "string"}},
            },
        }
    },
)
def get_audit(report_id: str) -> Response:
    summary, report, record = rows.get_report(services().db.connection(), report_id)
    if summary["table"] is not None:
        guard_table(summary["table"])  # a duplicate board's report: its players, until the end
    if wants_html():
        from audit.report.html import render_html

        return Response(
            render_html(report, record, notice=notice_of(summary), back=BACK),
            mimetype="text/html",
        )
    if wants_text():
        from audit.report.text import render_text

        text = render_text(report, notice=notice_of(summary))
        return Response(text, mimetype="text/plain")
    return jsonify(dict(summary, report=report))


@bp.get("/v1/audits/<report_id>/record")
@spec("The audited record", path=_REPORT_ID)
def get_audit_record(report_id: str) -> Response:
    summary, _, record = rows.get_report(services().db.connection(), report_id)
    if summary["table"] is not None:
        guard_table(summary["table"])
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
@spec(
    "Query listed reports, newest first",
    response=listing("reports", REPORT_SUMMARY, "next_cursor"),
    query=(
        param("table", "query", {"type": "string"}),
        param("player", "query", {"type": "string"}),
        param("code", "query", {"type": "string"}),
        param("since", "query", {"type": "string"}, desc="ISO 8601 date or time"),
        param("until", "query", {"type": "string"}, desc="ISO 8601 date or time"),
        LIMIT,
        param("cursor", "query", {"type": "string"}),
    ),
)
def list_audits() -> Response:
    """Report summaries, newest first, by table, player, finding code and date, paginated."""
    cursor = decode_cursor(request.args.get("cursor"), 2)
    q = rows.ReportQuery(
        table=request.args.get("table") or None,
        player=request.args.get("player") or None,
        code=request.args.get("code") or None,
        since=date_arg("since"),
        until=date_arg("until"),
        limit=limit_arg(),
        cursor=None if cursor is None else (cursor[0], cursor[1]),
    )
    reports = rows.query_reports(services().db.connection(), q)
    for r in reports:
        r["links"] = {"self": url_for("audits.get_audit", report_id=r["id"])}
    next_cursor = (
        encode_cursor([reports[-1]["created_at"], reports[-1]["id"]])
        if len(reports) == q.limit
        else None
    )
    return jsonify({"reports": reports, "next_cursor": next_cursor})
