"""Tournaments: the director's routes (a granted director's signed ruling, or the
operator's admin token), the entrants' signed registrations
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
from api.auth import director_reader, once, require_admin, signed_director, signed_reader
from api.clock import CLOCK
from api.database import Connection
from api.directors import granted
from api.errors import Forbidden, NotFound, Unauthorized
from api.routes import json_body, request_body, services
from api.schemas import ERROR, NAME, REASON, Schema, param, spec
from api.tournament import Tournaments, public_json
from api.tournament.claims import refused_claims
from audit.auditor import DEFAULT_ALPHA
from audit.tournament.event import DUPLICATE, ROUND_ROBIN
from audit.tournament.eventaudit import audit_records, locate
from audit.tournament.online import ACTIONS

__all__ = [
    "ACTIONS",
    "BEACON",
    "CERTIFIED_REASON",
    "DIRECTOR_ACTION",
    "NEW_TOURNAMENT",
    "REGISTRATION",
    "ROUND_END",
    "ROUND_NAMED",
    "SIGNED",
    "START",
    "beacon",
    "board_access",
    "bp",
    "create_tournament",
    "director_action",
    "end_round",
    "get_board",
    "get_events",
    "get_findings",
    "get_pair",
    "get_records",
    "get_standings",
    "get_tournament",
    "get_transcript",
    "guard_table",
    "list_tournaments",
    "next_round",
    "register",
    "ruler",
    "taken",
    "registration",
    "reveal",
    "start",
    "store_cards",
]

bp = Blueprint("tournaments", __name__)

CERTIFIED_REASON: Schema = {**REASON, "x-check": "name"}
"""A director's reason goes into the certificate: a name's characters (no control, bidi or
zero-width character)."""
_ROUND: Schema = {
    "type": "integer",
    "minimum": 1,
    "maximum": 1000,
    "description": "the number of the round this action is for (1 to 1000)",
}
_NOT_AN_OBJECT = "$: the body must be an object"
NEW_TOURNAMENT: Schema = {
    "type": "object",
    "x-error": _NOT_AN_OBJECT,
    "description": "and by format: pairs-duplicate takes tables (1 to 100), rounds and "
    "boards_per_round (1 to 36); rubber-round-robin takes pairs (2 to 100), rounds and "
    "hands_per_match (1 to 32)",
    # What the event checks by format (api.tournament.registration), shown here, not checked twice.
    "if": {"properties": {"format": {"const": DUPLICATE}}},
    "then": {
        "properties": {
            "tables": {"type": "integer", "minimum": 1, "maximum": 100},
            "rounds": {"type": "integer", "minimum": 1, "maximum": 100},
            "boards_per_round": {"type": "integer", "minimum": 1, "maximum": 36},
        }
    },
    "else": {
        "properties": {
            "pairs": {"type": "integer", "minimum": 2, "maximum": 100},
            "rounds": {"type": "integer", "minimum": 1},
            "hands_per_match": {"type": "integer", "minimum": 1, "maximum": 32},
        }
    },
    "required": ["format"],
    "properties": {
        "name": {
            **NAME,
            "description": "a name of 1 to 100 characters",
            "x-max-length": 100,
            "default": "tournament",
        },
        "format": {
            "enum": [DUPLICATE, ROUND_ROBIN],
            "description": f"must be {DUPLICATE!r} or {ROUND_ROBIN!r}",
        },
        "ruleset": {
            "type": "object",
            "description": "the event's rules (docs/rules.md; 422 INVALID_RULESET)",
            "default": {},
            "x-check": "ruleset",
        },
        "schedule": {
            "type": "string",
            "maxLength": 200,
            "description": "at most 200 characters",
            "x-check": "text",
        },
        "clock": CLOCK,
        "chat": {
            "type": "boolean",
            "description": "the tables' chat, off unless true (docs/tournaments.md)",
            "default": False,
        },
    },
}
REGISTRATION: Schema = {
    "type": "object",
    "required": ["open"],
    "properties": {
        "open": {
            "type": "boolean",
            "description": "true to open registration, false to close it",
        }
    },
}
BEACON: Schema = {
    "type": "object",
    "x-error": "$: the body must be an object {source, round, randomness}",
    "required": ["source", "round", "randomness"],
    "properties": {
        "source": {
            "type": "string",
            "minLength": 1,
            "maxLength": 100,
            "description": "1 to 100 characters",
        },
        "round": {
            "type": "integer",
            "minimum": 0,
            "maximum": 2**53 - 1,
            "description": f"must be an integer from 0 to {2**53 - 1}",
        },
        "randomness": {
            "type": "string",
            "pattern": "^(?:[0-9a-f]{2}){1,64}$",
            "description": "1 to 64 bytes in lowercase hex",
        },
    },
}
START: Schema = {
    "type": "object",
    "x-error": _NOT_AN_OBJECT,
    "properties": {
        "reveal_seconds": {
            "type": "integer",
            "minimum": 1,
            "maximum": 86_400,
            "description": "must be an integer from 1 to 86400",
            "title": "seconds from the start to the reveal deadline",
        }
    },
}
ROUND_NAMED: Schema = {"type": "object", "required": ["round"], "properties": {"round": _ROUND}}
ROUND_END: Schema = {
    "type": "object",
    "required": ["reason", "round"],
    "properties": {"reason": CERTIFIED_REASON, "round": _ROUND},
}
DIRECTOR_ACTION: Schema = {
    "type": "object",
    "x-error": _NOT_AN_OBJECT,
    "description": "and by action: substitute {pair, out, in}, adjust {round, table, board, "
    "ns, ew}, withdraw {pair}, void_board {board}; before the start, remove {entrant}",
    "required": ["reason"],
    "properties": {"reason": CERTIFIED_REASON},
}
SIGNED: Schema = {"type": "object", "description": "a signed log event (docs/log.md)"}
"""A signed event: the log's schemas check it (audit/log/schema/)."""
_PREPARING: dict[int, Schema] = {
    409: {
        "description": "WRONG_PHASE: the event is not over; NOT_READY: it is over and its "
        "certificate bundle is being prepared (ask again after Retry-After seconds)",
        "content": {"application/json": {"schema": ERROR}},
        "headers": {
            "Retry-After": {
                "description": "with NOT_READY: seconds after which to ask again",
                "schema": {"type": "integer"},
            }
        },
    }
}


def _t() -> Tournaments:
    return services().tournaments


def guard_table(table_id: str, reader: str | None = None) -> None:
    """403 unless the table is public or the request is signed by a player seated there
    (``reader``: a player already authenticated otherwise, a seat stream's signed URL) or
    by a granted director."""
    s = services()
    conn = s.db.connection()
    players = s.tournaments.private_players(conn, table_id)
    if players is None:
        return
    if reader is None and director_reader(s.config, granted(s.hand_log)) is not None:
        return  # a granted director watches every table (its public state)
    if reader is None:
        reader = signed_reader(conn, s.config)
    if reader is None or reader not in players:
        raise Forbidden(
            "a duplicate tournament table is read by its own players only until the event "
            "ends (a signed request)",
            details={"table": table_id},
        )


def ruler(take: bool = True) -> dict[str, Any] | None:
    """Who rules: a granted director's signed request (its ``by``; with ``take``, its
    nonce taken once), or ``None`` for the operator's admin token; 401 without either."""
    s = services()
    if request.headers.get("Authorization", "").startswith("Bearer "):
        require_admin(s.config)
        return None
    by = signed_director(s.config, granted(s.hand_log))
    if by is None:
        raise Unauthorized(
            "Authorization: sign this ruling with a granted director's key "
            "(Cayenne-Ed25519, cayenne-fairplay/write/v1), or give the operator's token",
            details={"path": "Authorization"},
        )
    if take:
        taken(by)
    return by


def taken(by: dict[str, Any] | None) -> None:
    """409 if a director's signed request was taken already (api.auth.once)."""
    if by is not None:
        s = services()
        once(s.db.connection(), f"{by['director']} {by['nonce']}", s.config.clock(), s.config)


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
@spec(
    "Create an event (a director, or admin): format pairs-duplicate (tables, boards_per_round, rounds) or "
    "rubber-round-robin (pairs, hands_per_match, rounds), ruleset, schedule; commits the "
    "service's tournament seed",
    body=NEW_TOURNAMENT,
    status=201,
    errors=(401, 403, 422),
    query=(
        param(
            idempotency.HEADER,
            "header",
            {"type": "string", "minLength": 1, "maxLength": 255},
            desc="printable ASCII: the same create sent again (a lost answer, another host) "
            "makes one event and gets its answer",
        ),
    ),
    security=("director", "admin"),
)
def create_tournament() -> tuple[Response, int, dict[str, str]]:
    by = ruler(take=False)  # the nonce is taken by the creation, not by its replay

    def create() -> idempotency.Stored:
        taken(by)
        doc = _t().create(request_body(), by)
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
@spec("List events")
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
@spec("An event's public state")
def get_tournament(tid: str) -> Response:
    return jsonify(_doc_json(_t().follow(tid)))  # a stalled event moved on (issue 24)


@bp.post("/v1/tournaments/<tid>/registration")
@spec(
    "Open or close registration (a director, or admin)",
    body=REGISTRATION,
    errors=(401, 403, 409),
    security=("director", "admin"),
)
def registration(tid: str) -> Response:
    by = ruler()
    opening = request_body()["open"]
    return jsonify(_doc_json(_t().registration(tid, opening, by)))


@bp.post("/v1/tournaments/<tid>/beacon")
@spec(
    "Fix the beacon value before registration closes (a director, or admin)",
    body=BEACON,
    errors=(401, 403, 409),
    security=("director", "admin"),
)
def beacon(tid: str) -> Response:
    by = ruler()
    return jsonify(_doc_json(_t().beacon(tid, request_body(), by)))


@bp.post("/v1/tournaments/<tid>/start")
@spec(
    "Fix the pairs and ask for the entrants' seeds (a director, or admin); with a beacon "
    "(cayenne-tournament-deals/2) also the reveal deadline and the drand round",
    body=START,
    body_required=False,
    errors=(401, 403, 409),
    security=("director", "admin"),
)
def start(tid: str) -> Response:
    by = ruler()
    body = request_body() if request.get_data(cache=True) else {}
    return jsonify(_doc_json(_t().start(tid, body, by)))


@bp.post("/v1/tournaments/<tid>/rounds/next")
@spec(
    "Deal (withdrawing pairs that did not reveal; under version 2 once the drand round after "
    "the reveal deadline is out, else 409 NOT_READY) or start round {round} (a director, or admin; once it "
    "is begun the same request changes nothing)",
    body=ROUND_NAMED,
    errors=(401, 403, 409),
    security=("director", "admin"),
)
def next_round(tid: str) -> Response:
    by = ruler()
    return jsonify(_doc_json(_t().next_round(tid, request_body(), by)))


@bp.post("/v1/tournaments/<tid>/rounds/end")
@spec(
    "End round {round} early, with a reason (a director, or admin; once it is over the same request "
    "changes nothing)",
    body=ROUND_END,
    errors=(401, 403, 409),
    security=("director", "admin"),
)
def end_round(tid: str) -> Response:
    by = ruler()
    return jsonify(_doc_json(_t().end_round(tid, request_body(), by)))


@bp.post("/v1/tournaments/<tid>/actions/<action>")
@spec(
    "A director's action with its reason (a director, or admin): substitute {pair, out, in}, adjust {round, "
    "table, board, ns, ew}, withdraw {pair}, void_board {board}; before the start, remove "
    "{entrant}",
    body=DIRECTOR_ACTION,
    path={"action": {"enum": list(ACTIONS)}},
    errors=(401, 403, 409),
    security=("director", "admin"),
)
def director_action(tid: str, action: str) -> Response:
    if action not in ACTIONS:
        raise NotFound(f"no director action {action!r} (one of {list(ACTIONS)})")
    by = ruler()
    return jsonify(_doc_json(_t().director(tid, action, request_body(), by)))


@bp.post("/v1/tournaments/<tid>/entrants")
@spec(
    "Register (a tournament_register event signed by the player)",
    body=SIGNED,
    status=201,
    errors=(401, 409),
)
def register(tid: str) -> tuple[Response, int]:
    return jsonify(_t().register(tid, json_body("event"))), 201


@bp.post("/v1/tournaments/<tid>/reveals")
@spec(
    "Reveal an entrant's seed privately (a signed tournament_reveal event); under version 2 "
    "before the reveal deadline, answered with a signed receipt",
    body=SIGNED,
    status=201,
    errors=(401, 403, 409),
)
def reveal(tid: str) -> tuple[Response, int]:
    return jsonify(_t().reveal(tid, json_body("event"))), 201


@bp.get("/v1/tournaments/<tid>/events")
@spec(
    "The event's chain, or an entrant's (?entrant=ID)",
    query=(param("entrant", "query", {"type": "string"}),),
)
def get_events(tid: str) -> Response:
    """The tournament's own chain (an entrant's chain: ``?entrant=ID``)."""
    t = _t()
    t.load(tid)
    entrant = request.args.get("entrant")
    hand = "event" if entrant is None else f"entrant-{entrant}"
    return jsonify({"events": services().hand_log.log.hand_events(tid, hand)})


@bp.get("/v1/tournaments/<tid>/standings")
@spec("Live standings (rounds over; board results at the end)")
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
@spec(
    "A board's travelling score sheet: to players who played it (signed), to everyone once "
    "the event is over (with its deal)",
    errors=(401, 403),
    path={"board": {"type": "integer", "minimum": 1}},
)
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
@spec(
    "A pair's card: to its players (signed) during a duplicate event",
    errors=(401, 403),
    path={"pair": {"type": "integer", "minimum": 1}},
)
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
@spec("Each table's record of each round", errors=(403,))
def get_records(tid: str) -> Response:
    """Each table's record of each round (a duplicate event's once it is over)."""
    t = _t()
    doc = t.load(tid)
    if doc["format"] == DUPLICATE and doc["phase"] != "over":
        raise Forbidden("a duplicate event's records are published when it ends")
    return jsonify({"records": t.records(doc)})


@bp.get("/v1/tournaments/<tid>/findings")
@spec(
    "The event's findings so far, to rule on (a director's signed read, or admin): the "
    "event-wide audit of the finished hands and the claims refused at its tables, each "
    "finding with its table_id, tables and board",
    errors=(401, 403),
    security=("director", "admin"),
)
def get_findings(tid: str) -> Response:
    """The event's findings so far, to rule on (a granted director's signed read, or the
    operator's token): the event-wide audit of the finished hands (fouled boards, a
    dealer's stacking across tables, each record's own findings), each with its table's
    id and board where it has one."""
    s = services()
    if request.headers.get("Authorization", "").startswith("Bearer "):
        require_admin(s.config)
    elif director_reader(s.config, granted(s.hand_log)) is None:
        raise Unauthorized(
            "Authorization: the findings are read by a granted director (a signed read)",
            details={"path": "Authorization"},
        )
    t = _t()
    doc = t.load(tid)
    audit = audit_records(t.records(doc), DEFAULT_ALPHA)
    out = locate(audit["findings"], doc["rounds_played"])
    out += refused_claims(s.hand_log, doc)  # the claims refused, for a ruling
    return jsonify({"tournament": tid, "verdict": audit["verdict"], "findings": out})


@bp.get("/v1/tournaments/<tid>/transcript")
@spec(
    "The cayenne-tournament-deals transcript (/1 or /2), once the event is over",
    errors=(403,),
)
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
@spec(
    "The certificate (cayenne-tournament-certificate/1) and the log key's signed note over "
    "it, once the event is over and its bundle is built",
    errors=(409,),
    responses=_PREPARING,
)
def get_certificate(tid: str) -> Response:
    """The certificate of a finished event and the log key's signed note over it."""
    from api.certificate import bundle

    b = bundle(services().certificates, tid)
    return jsonify({"certificate": b["certificate"], "note": b["note"]})


@bp.get("/v1/tournaments/<tid>/certificate/bundle")
@spec(
    "The certificate bundle: the certificate, its note, the checkpoint with its "
    "cosignatures, every event with its inclusion proof and every record (fairplay "
    "tournament verify); built in the background when the event ends (409 NOT_READY with "
    "Retry-After meanwhile)",
    errors=(409,),
    responses=_PREPARING,
)
def get_certificate_bundle(tid: str) -> Response:
    """The certificate with every event, inclusion proof and record it needs (offline)."""
    from api.certificate import bundle_text

    # the stored text as it is (tens of megabytes for a large event): not parsed again
    return Response(bundle_text(services().certificates, tid), mimetype="application/json")
