"""Playing in the browser: the player's pages, their scripts, bot tables and event streams.

``/play`` makes or imports the person's key (in the browser: it never reaches the
server), registers it and opens a table against the house bots; ``/play/{t}`` is the
table as its seated player sees it. Both are driven by the ES modules under
``api/static/js`` (docs/browser.md), served from ``/static/js/``. The streams are
:mod:`api.sse`'s; the bots are :mod:`api.house`'s.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from flask import (
    Blueprint,
    Response,
    current_app,
    jsonify,
    request,
    send_from_directory,
    stream_with_context,
)

from api import rows
from api.auth import once, signed_writer
from api.errors import Forbidden, NotFound, Unauthorized
from api.house import House
from api.ratelimit import Rate, take
from api.routes import request_body, services
from api.routes.hands import hand_json, load_hand, seat_json
from api.routes.pages import page
from api.routes.players import check_name
from api.routes.tables import TABLE, table_json
from api.routes.tournaments import guard_table
from api.schemas import NAME, Schema, param, spec
from api.seatings import find_seating
from api.sse import StreamSlots, check_seat_reader, messages, stream_reader
from api.tournament import event_rows
from audit.errors import InvalidCardError, NotFoundError
from audit.rules.cards import Seat

__all__ = [
    "BOT_TABLE",
    "SCRIPT_NAME",
    "STATIC_JS",
    "bp",
    "create_bot_table",
    "house",
    "play_page",
    "play_table_page",
    "script",
    "seat_stream",
    "slots",
    "table_stream",
]

bp = Blueprint("play", __name__)

BOT_TABLE: Schema = {
    "type": "object",
    "x-error": "the body must be an object {name?}",
    "additionalProperties": False,
    "properties": {"name": {**NAME, "default": "against the bots"}},
}

STATIC_JS = Path(__file__).resolve().parent.parent / "static" / "js"
STATIC_VENDOR = STATIC_JS.parent / "vendor"
"""Built, not committed: npm ci, then esbuild (the Makefile's vendor stamp)."""
SCRIPT_NAME = re.compile(r"^[a-z0-9_-]{1,40}\.js$")


def house() -> House:
    ext = current_app.extensions
    if "fairplay_house" not in ext:
        ext["fairplay_house"] = House(services().room)
    return ext["fairplay_house"]  # type: ignore[no-any-return]


def slots() -> StreamSlots:
    ext = current_app.extensions
    if "fairplay_streams" not in ext:
        ext["fairplay_streams"] = StreamSlots(services().config.max_streams)
    return ext["fairplay_streams"]  # type: ignore[no-any-return]


# ------------------------------------------------------------------------------ pages


@bp.get("/play")
@spec("Make or import a key, register, sit down (player)", response="text/html")
def play_page() -> Response:
    cfg = services().config
    return page(
        "play.html",
        self_registration=cfg.self_registration,
        bot_tables=cfg.bot_tables,
        ttl_text=duration_text(cfg.people_table_ttl),
    )


def duration_text(seconds: int) -> str:
    """``86400`` → ``"24 hours"``, ``90`` → ``"2 minutes"``: a table's time to fill."""
    if seconds >= 7200:
        return f"{round(seconds / 3600)} hours"
    if seconds >= 120:
        return f"{round(seconds / 60)} minutes"
    return f"{seconds} seconds"


@bp.get("/play/<table_id>")
@spec("A table as its seated player plays it", response="text/html")
def play_table_page(table_id: str) -> Response:
    conn = services().db.connection()
    try:
        table = rows.get_table(conn, table_id)
    except NotFoundError:
        # a table of people still waiting for its seats (api/seatings.py), or none (404)
        seating = find_seating(conn, table_id)
        if seating is None:
            raise  # (opened, its table row being written: the page waits, then reloads)
        return page("play_waiting.html", seating=seating, bot_tables=services().config.bot_tables)
    place = event_rows.table_sitting(conn, table_id)  # an event's table: its round and number
    event = None if place is None else {"id": place[0], "round": place[1], "table": place[2]}
    return page(
        "play_table.html", table=table, log_key=services().hand_log.verifier_key(), event=event
    )


@bp.get("/static/js/<name>")
@spec("The project's ES modules (the browser's signer and verifier)", response="text/javascript")
def script(name: str) -> Response:
    """The project's own ES modules (no code is fetched from anywhere else)."""
    if not SCRIPT_NAME.match(name) or not (STATIC_JS / name).is_file():
        raise NotFound(f"no script {name!r}")
    resp = send_from_directory(STATIC_JS, name, mimetype="text/javascript", max_age=60)
    resp.headers["X-Content-Type-Options"] = "nosniff"
    return resp


@bp.get("/static/vendor/<name>")
@spec(
    "Third-party ES modules bundled when the service is built (the BLS12-381 library of the "
    "browser's drand check); 404 on a service built without them",
    response="text/javascript",
)
def vendor_script(name: str) -> Response:
    """A bundle `make` builds from the pinned npm packages (docs/browser.md, "Third-party
    code"): served from this origin like the project's own modules, never from elsewhere."""
    if not SCRIPT_NAME.match(name) or not (STATIC_VENDOR / name).is_file():
        raise NotFound(f"no vendored script {name!r} (built by `make` with npm)")
    resp = send_from_directory(STATIC_VENDOR, name, mimetype="text/javascript", max_age=60)
    resp.headers["X-Content-Type-Options"] = "nosniff"
    resp.headers["Cross-Origin-Resource-Policy"] = "same-origin"
    return resp


@bp.get("/static/favicon.svg")
@spec("The pages' icon", response="image/svg+xml")
def favicon() -> Response:
    """The pages' icon (every page links it; it was a 404)."""
    resp = send_from_directory(
        STATIC_JS.parent, "favicon.svg", mimetype="image/svg+xml", max_age=3600
    )
    resp.headers["X-Content-Type-Options"] = "nosniff"
    return resp


# ------------------------------------------------------------------------- bot tables


@bp.post("/v1/bot-tables")
@spec(
    "Open a table with the signing player at S and three house bots the service runs (when "
    "bot tables are on; a signed write: its body and a nonce)",
    body=BOT_TABLE,
    status=201,
    response=TABLE,
    errors=(401, 403, 429),
    security="player",
)
def create_bot_table() -> tuple[Response, int, dict[str, str]]:
    """A table with the signing player at S and three house bots (docs/api.md)."""
    s = services()
    if not s.config.bot_tables:
        raise Forbidden("bot tables are off on this service (Config.bot_tables)")
    conn = s.db.connection()
    signed = signed_writer(conn, s.config)
    if signed is None:
        raise Unauthorized(
            "Authorization: sign this request, its body and a nonce with the player's key "
            "(Cayenne-Ed25519, cayenne-fairplay/write/v1)",
            details={"path": "Authorization"},
        )
    person, nonce = signed
    body = request_body()
    name = check_name(body.get("name", "against the bots"), "name")
    house().check_room()  # before anything is taken or made: a refusal changes nothing
    rate = Rate(s.config.register_burst, s.config.register_per_hour)
    take(conn, "bot-table", request.remote_addr or "unknown", rate, s.config.clock())
    once(conn, f"{person} {nonce}", s.config.clock(), s.config)
    table = house().open_table(person, name)
    out = table_json(table)
    out["links"]["play"] = f"/play/{table.id}"
    return jsonify(out), 201, {"Location": f"/v1/tables/{table.id}"}


# ---------------------------------------------------------------------------- streams


def _stream(table_id: str, seat: Seat | None) -> Response:
    s = services()
    conn = s.db.connection()
    table = rows.get_table(conn, table_id)
    reader = None
    if seat is not None:
        reader = stream_reader(conn, s.config, request.args.to_dict(), request.path)
        check_seat_reader(table, seat, reader)
    # A duplicate table's privacy, judged once before the first byte (its signed URL is
    # the seat stream's credential): a 403 here, never an abort after the 200.
    guard_table(table_id, reader)
    if seat is not None:
        house().ensure(table_id)  # the person is here: the bots play
    if reader is None:  # a spectator: the spectators' pool, counted per address
        release = slots().take("watch", request.remote_addr or "unknown")
    else:  # a seated player's own stream: the seats' pool, counted per player
        release = slots().take("seat", reader)
    names = rows.player_names(conn, list(table.seats.values()))
    first = {
        "table": table_json(table),
        "names": names,
        "seat": None if seat is None else seat.name,
    }

    def render(current: rows.Table, number: int, new: bool) -> dict[str, Any]:
        t, hand, state = load_hand(table_id, number, guarded=False)
        msg: dict[str, Any] = {"hand": hand_json(t, hand, state)}
        if new and number > 1:
            msg["previous"] = hand_json(*load_hand(table_id, number - 1, guarded=False))
        if seat is not None:
            msg["cards"] = seat_json(hand, state, seat)
        return msg

    def body() -> Iterator[str]:
        try:
            yield from messages(s.room, table_id, first, render, superseded=release.superseded)
        finally:
            release()

    resp = Response(stream_with_context(body()), mimetype="text/event-stream")
    resp.call_on_close(release)
    resp.headers["Cache-Control"] = "no-store"
    resp.headers["X-Accel-Buffering"] = "no"
    return resp


@bp.get("/v1/tables/<table_id>/stream")
@spec(
    "The table's public state as server-sent events (table, state, bye)",
    response="text/event-stream",
    errors=(429,),
)
def table_stream(table_id: str) -> Response:
    """The table's public state as it changes (server-sent events; never a hidden card)."""
    return _stream(table_id, None)


@bp.get("/v1/tables/<table_id>/seats/<seat>/stream")
@spec(
    "The table as the seat's player sees it, with that seat's cards, as server-sent events; "
    "the URL carries a signed read (docs/api.md)",
    response="text/event-stream",
    errors=(401, 403, 429),
    query=(
        param("player", "query", {"type": "string"}, required=True),
        param("ts", "query", {"type": "integer"}, required=True),
        param(
            "sig",
            "query",
            {"type": "string"},
            required=True,
            desc="base64 Ed25519 signature of cayenne-fairplay/read/v1, GET, the path and ts, "
            "one per line",
        ),
    ),
)
def seat_stream(table_id: str, seat: str) -> Response:
    """The table as its seat's player sees it, with that seat's cards (signed URL)."""
    try:
        where = Seat.parse(seat)
    except InvalidCardError:
        raise NotFound(f"{seat!r} is not a seat (N, E, S or W)") from None
    return _stream(table_id, where)
