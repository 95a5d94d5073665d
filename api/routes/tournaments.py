"""Tournaments: the director's routes (admin token), the entrants' signed registrations
and reveals, and the event's public state, standings, boards and pairs' cards.

Privacy (docs/tournaments.md): until a duplicate event is over, a board's cards, its
results and its travelling score sheet are read only by the players who have played it
(signed reads); the tables' hands only by the four players seated there
(:func:`guard_table`, applied by the hand, table, log, audit and page routes).
"""

from __future__ import annotations

from typing import Any

from flask import Blueprint, Response, jsonify, request, url_for

from api import idempotency
from api.auth import require_admin, signed_reader
from api.database import Connection
from api.errors import BadRequest, Forbidden, NotFound
from api.routes import json_body, services
from api.tournament import Tournaments, public_json
from audit.tournament.event import DUPLICATE
from audit.tournament.online import ACTIONS

__all__ = [
    "ACTIONS",
    "beacon",
    "board_access",
    "bp",
    "create_tournament",
    "director_action",
    "end_round",
    "get_board",
    "get_events",
    "get_pair",
    "get_records",
    "get_standings",
    "get_tournament",
    "get_transcript",
    "guard_table",
    "list_tournaments",
    "next_round",
    "register",
    "registration",
    "reveal",
    "start",
    "store_cards",
]

bp = Blueprint("tournaments", __name__)


def _t() -> Tournaments:
    return services().tournaments


def guard_table(table_id: str, reader: str | None = None) -> None:
    """403 unless the table is public or the request is signed by a player seated there
    (``reader``: a player already authenticated otherwise, a seat stream's signed URL)."""
    s = services()
    conn = s.db.connection()
    players = s.tournaments.private_players(conn, table_id)
    if players is None:
        return
    if reader is None:
        reader = signed_reader(conn, s.config)
    if reader is None or reader not in players:
        raise Forbidden(
            "a duplicate tournament table is read by its own players only until the event "
            "ends (a signed request)",
            details={"table": table_id},
        )


def _doc_json(doc: dict[str, Any]) -> dict[str, Any]:
    out = public_json(doc)
    tid = doc["id"]
    out["links"] = {
        "self": url_for("tournaments.get_tournament", tid=tid),
        "standings": url_for("tournaments.get_standings", tid=tid),
        "events": url_for("tournaments.get_events", tid=tid),
    }
    return out


@bp.post("/v1/tournaments")
def create_tournament() -> tuple[Response, int, dict[str, str]]:
    require_admin(services().config)

    def create() -> idempotency.Stored:
        doc = _t().create(json_body())
        location = url_for("tournaments.get_tournament", tid=doc["id"])
        return 201, _doc_json(doc), {"Location": location}

    key = idempotency.parse_key(request.headers.get(idempotency.HEADER))
    if key is None:
        status, body, headers = create()
    else:  # sent again (a lost answer, a retry on another host): one event, one answer
        data = request.get_data(cache=True)
        status, body, headers = idempotency.once(services().db, key, request.path, data, create)
    return jsonify(body), status, headers


@bp.get("/v1/tournaments")
def list_tournaments() -> Response:
    rows = services().db.connection().all("SELECT id FROM api_tournaments ORDER BY created_at, id")
    out = []
    for (tid,) in rows:
        doc = _t().load(str(tid))
        out.append(
            {"id": doc["id"], "name": doc["name"], "format": doc["format"], "phase": doc["phase"]}
        )
    return jsonify({"tournaments": out})


@bp.get("/v1/tournaments/<tid>")
def get_tournament(tid: str) -> Response:
    return jsonify(_doc_json(_t().follow(tid)))  # a stalled event moved on (issue 24)


@bp.post("/v1/tournaments/<tid>/registration")
def registration(tid: str) -> Response:
    require_admin(services().config)
    body = json_body()
    opening = body.get("open") if isinstance(body, dict) else None
    if not isinstance(opening, bool):
        raise BadRequest(
            "open: true to open registration, false to close it", details={"path": "open"}
        )
    return jsonify(_doc_json(_t().registration(tid, opening)))


@bp.post("/v1/tournaments/<tid>/beacon")
def beacon(tid: str) -> Response:
    require_admin(services().config)
    return jsonify(_doc_json(_t().beacon(tid, json_body())))


@bp.post("/v1/tournaments/<tid>/start")
def start(tid: str) -> Response:
    require_admin(services().config)
    body = json_body() if request.get_data(cache=True) else {}
    return jsonify(_doc_json(_t().start(tid, body)))


@bp.post("/v1/tournaments/<tid>/rounds/next")
def next_round(tid: str) -> Response:
    require_admin(services().config)
    return jsonify(_doc_json(_t().next_round(tid, json_body())))


@bp.post("/v1/tournaments/<tid>/rounds/end")
def end_round(tid: str) -> Response:
    require_admin(services().config)
    return jsonify(_doc_json(_t().end_round(tid, json_body())))


@bp.post("/v1/tournaments/<tid>/actions/<action>")
def director_action(tid: str, action: str) -> Response:
    require_admin(services().config)
    if action not in ACTIONS:
        raise NotFound(f"no director action {action!r} (one of {list(ACTIONS)})")
    return jsonify(_doc_json(_t().director(tid, action, json_body())))


@bp.post("/v1/tournaments/<tid>/entrants")
def register(tid: str) -> tuple[Response, int]:
    return jsonify(_t().register(tid, json_body("event"))), 201


@bp.post("/v1/tournaments/<tid>/reveals")
def reveal(tid: str) -> tuple[Response, int]:
    return jsonify(_t().reveal(tid, json_body("event"))), 201


@bp.get("/v1/tournaments/<tid>/events")
def get_events(tid: str) -> Response:
    """The tournament's own chain (an entrant's chain: ``?entrant=ID``)."""
    t = _t()
    t.load(tid)
    entrant = request.args.get("entrant")
    hand = "event" if entrant is None else f"entrant-{entrant}"
    return jsonify({"events": services().ledger.log.hand_events(tid, hand)})


@bp.get("/v1/tournaments/<tid>/standings")
def get_standings(tid: str) -> Response:
    """The standings over the rounds that are over (board results withheld until the end)."""
    t = _t()
    doc = t.load(tid)
    out = t.standings(doc)
    if doc["format"] == DUPLICATE and doc["phase"] != "over":
        out["boards"] = []  # travelling sheets: /boards/<n>, to those who played them
    out["phase"] = doc["phase"]
    return jsonify(out)


def _reader_may(doc: dict[str, Any], allowed: set[str]) -> None:
    if doc["phase"] == "over" or doc["format"] != DUPLICATE:
        return
    s = services()
    reader = signed_reader(s.db.connection(), s.config)
    if reader is None or reader not in allowed:
        raise Forbidden(
            "until the event ends this is read only by a player who has played it "
            "(a signed request)"
        )


def board_access(tid: str, board: int) -> tuple[Tournaments, dict[str, Any], Connection, bool]:
    """The event of a board (404 when it has no board ``board``), a connection, and whether
    this request may read the board now: anyone once the event is over, before that only a
    signed request of a player who has played it."""
    t = _t()
    doc = t.load(tid)
    if doc["format"] != DUPLICATE or not 1 <= board <= doc["tables"] * doc["boards_per_round"]:
        raise NotFound(f"tournament {tid!r} has no board {board}")
    conn = services().db.connection()
    if doc["phase"] == "over":
        return t, doc, conn, True
    reader = signed_reader(conn, services().config)
    return t, doc, conn, reader is not None and board in t.played_boards(conn, doc, reader)


@bp.get("/v1/tournaments/<tid>/boards/<int:board>")
def get_board(tid: str, board: int) -> Response:
    """A board's travelling score sheet (rounds over); its deal once the event is over."""
    t, doc, conn, readable = board_access(tid, board)
    if not readable:
        raise Forbidden(
            f"board {board} is read only by a player who has played it until the event "
            "ends (a signed request)",
            details={"board": board},
        )
    sheet = next((b for b in t.standings(doc)["boards"] if b["board"] == board), None)
    out: dict[str, Any] = {
        "tournament": tid,
        "board": board,
        "voided": board in doc["voided"],
        "results": [] if sheet is None else sheet["results"],
        "top": None if sheet is None else sheet["top"],
        "deal": None,
    }
    if doc["phase"] == "over" and doc["revealed"]:
        deal = t.board(doc, board)
        out["deal"] = {
            **deal.to_json(),
            "hands": {s.name: [str(c) for c in store_cards(deal.deal[s])] for s in deal.deal},
        }
    return jsonify(out)


def store_cards(cards: list[Any]) -> list[str]:
    from audit.rules.cards import CARD_TEXT

    return [CARD_TEXT[c] for c in cards]


@bp.get("/v1/tournaments/<tid>/pairs/<int:pair>")
def get_pair(tid: str, pair: int) -> Response:
    """A pair's card: its boards, results and matchpoints (rounds over)."""
    t = _t()
    doc = t.load(tid)
    if not 1 <= pair <= len(doc["pair_list"]):
        raise NotFound(f"tournament {tid!r} has no pair {pair}")
    members = {p for r in range(1, max(doc["round"], 1) + 1) for p in t.members(doc, pair, r)}
    _reader_may(doc, members)
    standings = t.standings(doc)
    label = t.members(doc, pair, doc["round"] or 1)
    rows = []
    for b in standings.get("boards", []):
        for r in b["results"]:
            for side in ("ns", "ew"):
                if r[side] == label:
                    rows.append({"board": b["board"], "side": side.upper(), **r})
    if doc["format"] != DUPLICATE:
        rows = [m for m in standings.get("matches", []) if label in (m["ns"], m["ew"])]
    place = next((s for s in standings["standings"] if s["pair"] == label), None)
    return jsonify(
        {"tournament": tid, "pair": pair, "players": label, "standing": place, "results": rows}
    )


@bp.get("/v1/tournaments/<tid>/records")
def get_records(tid: str) -> Response:
    """Each table's record of each round (a duplicate event's once it is over)."""
    t = _t()
    doc = t.load(tid)
    if doc["format"] == DUPLICATE and doc["phase"] != "over":
        raise Forbidden("a duplicate event's records are published when it ends")
    return jsonify({"records": t.records(doc)})


@bp.get("/v1/tournaments/<tid>/transcript")
def get_transcript(tid: str) -> Response:
    """The cayenne-tournament-deals transcript (/1 or /2; ``fairplay shuffle verify``), at
    the end."""
    t = _t()
    doc = t.load(tid)
    if doc["format"] != DUPLICATE:
        raise NotFound("a round robin deals every hand with its own ceremony")
    if doc["phase"] != "over":
        raise Forbidden("the transcript (with the service's seed) is published when the event ends")
    from dataclasses import replace

    from shuffle import tournament as deals

    tr = t.transcript(doc)
    full = replace(tr, claimed=tuple(b.to_json() for b in deals.derive_boards(tr)))
    return jsonify(full.to_json())


@bp.get("/v1/tournaments/<tid>/certificate")
def get_certificate(tid: str) -> Response:
    """The certificate of a finished event and the log key's signed note over it."""
    from api.certificate import bundle

    b = bundle(services().certificates, tid)
    return jsonify({"certificate": b["certificate"], "note": b["note"]})


@bp.get("/v1/tournaments/<tid>/certificate/bundle")
def get_certificate_bundle(tid: str) -> Response:
    """The certificate with every event, inclusion proof and record it needs (offline)."""
    from api.certificate import bundle_text

    # the stored text as it is (tens of megabytes for a large event): not parsed again
    return Response(bundle_text(services().certificates, tid), mimetype="application/json")
