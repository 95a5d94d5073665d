"""Hands: the public state, the signed events, a player's own cards, the record and report.

Privacy: until a hand is over, the only endpoint that returns unplayed cards is
``.../seats/<seat>/cards``, and it answers only the player seated there, on a request
signed with that player's key (403 for everyone else, the administrator included).
The record (which holds the deal) is refused (403) until the hand is over.
"""

from __future__ import annotations

from typing import Any

from flask import Blueprint, Response, jsonify, url_for

from api import rows
from api.auth import require_admin, signed_reader
from api.clock import public_clock
from api.errors import Forbidden, NotFound
from api.handstate import Snapshot, waiting_for
from api.room import repair
from api.routes import json_body, request_body, services
from api.routes.tournaments import guard_table
from api.schemas import HEX32, NULLABLE_STR, OBJ, REASON, SEAT, Schema, listing, spec
from audit.errors import InvalidCardError
from audit.rules.cards import Seat

__all__ = [
    "HAND",
    "MAX_HAND",
    "NUMBER",
    "SIGNED_EVENT",
    "bp",
    "get_hand",
    "hand_json",
    "hand_proof",
    "hand_record",
    "hand_report",
    "list_events",
    "list_hands",
    "load_hand",
    "post_event",
    "seat_cards",
    "seat_json",
    "void_hand",
]

bp = Blueprint("hands", __name__)

MAX_HAND = 2**31 - 1
NUMBER: Schema = {"type": "integer", "minimum": 1, "maximum": MAX_HAND}
"""A hand's number in a path."""
_HAND_PATH = {"number": NUMBER}

HAND: Schema = {
    "type": "object",
    "required": ["table", "hand", "phase", "dealer", "pack", "next_seq", "last_hash", "ceremony"],
    "properties": {
        "table": {"type": "string"},
        "hand": {"type": "integer"},
        "phase": {
            "type": "string",
            "enum": ["committing", "revealing", "calling", "playing", "over", "void"],
        },
        "dealer": SEAT,
        "pack": {"type": "integer"},
        "seats": OBJ,
        "waiting_for": {"type": "array", "items": SEAT},
        "next_seq": {"type": "integer"},
        "last_hash": HEX32,
        "ceremony": OBJ,
        "play": {"type": ["object", "null"]},
        "score_before": OBJ,
        "score_after": {"type": ["object", "null"]},
        "report_id": NULLABLE_STR,
        "started_at": {"type": "string"},
        "finished_at": NULLABLE_STR,
        "links": OBJ,
        "clock": {
            "type": ["object", "null"],
            "description": "the seats' clock at a clocked table (api/clock.py), else null",
        },
    },
}
SIGNED_EVENT: Schema = {
    "type": "object",
    "description": "An event of the log's format (docs/log.md), signed by the acting player",
    "required": [
        "v",
        "origin",
        "table",
        "hand",
        "seq",
        "prev",
        "actor",
        "key",
        "type",
        "body",
        "signature",
    ],
    "additionalProperties": False,
    "properties": {
        "v": {"const": 1},
        "origin": {"type": "string"},
        "table": {"type": "string"},
        "hand": {"type": "string", "description": "the hand number as text"},
        "seq": {"type": "integer", "minimum": 0},
        "prev": {"type": ["string", "null"]},
        "actor": {"type": "string", "description": "the player id"},
        "key": {"type": "string", "description": "the player's C2SP verifier key"},
        "type": {
            "type": "string",
            "enum": ["commit", "reveal", "call", "play", "claim", "claim_answer"],
        },
        "body": {
            "type": "object",
            "description": "exactly commit: {commitment}; reveal: {seed}; call: {call}; "
            "play: {card, ace_high?}; claim: {tricks}; claim_answer: {accept}; the JSON Schema of each type is shipped in "
            "audit/log/schema/<type>.json (docs/log.md); anything else is 400",
        },
        "time": {
            "type": "string",
            "description": "optional: RFC 3339 in UTC with Z, e.g. 2024-05-01T12:30:00Z",
            "pattern": "^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}(\\.[0-9]{1,9})?Z$",
        },
        "signature": {"type": "string", "description": "base64 Ed25519 signature"},
    },
}
"""A signed event as the document shows it; the log's own schemas (audit/log/schema/)
check it, with the errors they name (``event.body.card``)."""
ACCEPTED: Schema = {
    "type": "object",
    "required": ["seq", "hash", "next_seq", "last_hash", "phase"],
    "properties": {
        "seq": {"type": "integer"},
        "hash": HEX32,
        "next_seq": {"type": "integer"},
        "last_hash": HEX32,
        "phase": {"type": "string"},
    },
}
VOID: Schema = {"type": "object", "required": ["reason"], "properties": {"reason": REASON}}
VOIDED: Schema = {
    "type": "object",
    "required": ["table", "hand", "phase", "next_hand"],
    "properties": {
        "table": {"type": "string"},
        "hand": {"type": "integer"},
        "phase": {"const": "void"},
        "next_hand": {"type": "integer"},
    },
}


def load_hand(
    table_id: str, number: int, guarded: bool = True
) -> tuple[rows.Table, rows.HandRow, Snapshot | None]:
    """A table's hand; ``guarded=False`` only where :func:`guard_table` ran already (a
    stream, which checks once before its first byte)."""
    s = services()
    conn = s.db.connection()
    if not 1 <= number <= MAX_HAND:
        raise NotFound(f"table {table_id!r} has no hand {number}")
    table = rows.get_table(conn, table_id)
    if guarded:
        guard_table(table_id)  # a duplicate board: its players only, until the event ends
    hand = rows.get_hand(conn, table_id, number)
    if repair.expire(s.room, hand):  # the ceremony waited too long for a seat: void
        hand = rows.get_hand(conn, table_id, number)
    return table, hand, s.room.snapshot(hand)


def hand_json(table: rows.Table, hand: rows.HandRow, state: Snapshot | None) -> dict[str, Any]:
    c = hand.ceremony
    over = hand.phase == "over"
    published = over or hand.phase == "void"  # the void event publishes the server's seed
    cer: dict[str, Any] = {
        "server_commitment": hand.server_commitment,
        "commitments": {s.name: c["commitments"].get(s.name) for s in Seat},
        "revealed": {s.name: s.name in c["seeds"] for s in Seat},
        "server_seed": hand.server_seed if published else None,
        "deal_number": c.get("deal_number") if over else None,
    }
    waiting = waiting_for(
        hand,
        None if state is None else state.to_act,
        None if state is None else state.public.get("claim"),
    )
    links = {
        "self": url_for("hands.get_hand", table_id=hand.table_id, number=hand.number),
        "events": url_for("hands.list_events", table_id=hand.table_id, number=hand.number),
        "page": url_for("pages.hand_page", table_id=hand.table_id, number=hand.number),
    }
    if over:
        links["record"] = url_for("hands.hand_record", table_id=hand.table_id, number=hand.number)
        links["report"] = url_for("audits.get_audit", report_id=hand.report_id)
        links["proof"] = url_for("hands.hand_proof", table_id=hand.table_id, number=hand.number)
    out: dict[str, Any] = {
        "table": hand.table_id,
        "hand": hand.number,
        "phase": hand.phase,
        "dealer": hand.dealer.name,
        "pack": hand.pack,
        "seats": {s.name: p for s, p in table.seats.items()},
        "waiting_for": waiting,
        "next_seq": hand.event_count,
        "last_hash": hand.last_hash,
        "ceremony": cer,
        "play": None if state is None else state.public,
        "score_before": hand.start_score,
        "score_after": hand.end_score,
        "report_id": hand.report_id,
        "started_at": hand.started_at,
        "finished_at": hand.finished_at,
        "links": links,
        # the service's clock, the one its clock runner judges by
        "clock": public_clock(
            hand, None if state is None else state.to_act, services().config.clock()
        ),
    }
    if "board" in c:  # a duplicate event's board: its number, dealt without a ceremony
        out["board"] = int(c["board"])
    return out


@bp.get("/v1/tables/<table_id>/hands")
@spec("The table's hands", response=listing("hands", OBJ))
def list_hands(table_id: str) -> Response:
    conn = services().db.connection()
    rows.get_table(conn, table_id)
    guard_table(table_id)
    return jsonify(
        {
            "hands": [
                {
                    "hand": h.number,
                    "phase": h.phase,
                    "dealer": h.dealer.name,
                    "report_id": h.report_id,
                    "started_at": h.started_at,
                    "finished_at": h.finished_at,
                    "links": {
                        "self": url_for("hands.get_hand", table_id=table_id, number=h.number)
                    },
                }
                for h in rows.list_hands(conn, table_id)
            ]
        }
    )


@bp.get("/v1/tables/<table_id>/hands/<int:number>")
@spec(
    "A hand's public state (a ceremony that has waited the service's ceremony_timeout for "
    "a seat since its first commitment is voided first)",
    response=HAND,
    path=_HAND_PATH,
)
def get_hand(table_id: str, number: int) -> Response:
    return jsonify(hand_json(*load_hand(table_id, number)))


@bp.post("/v1/tables/<table_id>/hands/<int:number>/events")
@spec(
    "Submit a signed commit, reveal, call or play",
    body=SIGNED_EVENT,
    status=201,
    response=ACCEPTED,
    errors=(401, 403, 409, 422),
    path=_HAND_PATH,
)
def post_event(table_id: str, number: int) -> tuple[Response, int]:
    if not 1 <= number <= MAX_HAND:
        raise NotFound(f"table {table_id!r} has no hand {number}")
    result = services().room.submit(table_id, number, json_body("event"))
    return jsonify(result), 201


@bp.post("/v1/tables/<table_id>/hands/<int:number>/void")
@spec(
    "Void a hand whose shuffle ceremony cannot finish (admin; the service also voids one "
    "that waits ceremony_timeout seconds for a seat)",
    body=VOID,
    response=VOIDED,
    errors=(401, 403, 409),
    path=_HAND_PATH,
    security="admin",
)
def void_hand(table_id: str, number: int) -> Response:
    """Void a hand whose shuffle ceremony cannot finish (administrator)."""
    s = services()
    require_admin(s.config)
    if not 1 <= number <= MAX_HAND:
        raise NotFound(f"table {table_id!r} has no hand {number}")
    reason = request_body()["reason"]
    return jsonify(repair.void(s.room, table_id, number, reason))


@bp.get("/v1/tables/<table_id>/hands/<int:number>/events")
@spec("The hand's signed events", response=listing("events", OBJ), path=_HAND_PATH)
def list_events(table_id: str, number: int) -> Response:
    """The hand's signed events (commitments, seeds, calls and plays: never a hidden card)."""
    load_hand(table_id, number)
    return jsonify({"events": services().hand_log.hand_events(table_id, number)})


@bp.get("/v1/tables/<table_id>/hands/<int:number>/seats/<seat>/cards")
@spec(
    "A seat's cards: before the end only to its player, on a signed request",
    errors=(401, 403),
    path=_HAND_PATH,
)
def seat_cards(table_id: str, number: int, seat: str) -> Response:
    """A seat's cards: its own player only, on a signed request, until the hand is over."""
    s = services()
    try:
        where = Seat.parse(seat)
    except InvalidCardError:
        raise NotFound(f"{seat!r} is not a seat (N, E, S or W)") from None
    table, hand, state = load_hand(table_id, number)
    over = hand.phase == "over"
    if not over:
        reader = signed_reader(s.db.connection(), s.config)
        if reader is None or reader != table.seats[where]:
            raise Forbidden(
                f"only the player at {where.name} may read these cards before the hand is over",
                details={"seat": where.name},
            )
    return jsonify(seat_json(hand, state, where))


def seat_json(hand: rows.HandRow, state: Snapshot | None, where: Seat) -> dict[str, Any]:
    """A seat's own cards and choices: for its player only until the hand is over."""
    dealt = hand.ceremony.get("deal", {}).get(where.name)
    out: dict[str, Any] = {
        "table": hand.table_id,
        "hand": hand.number,
        "seat": where.name,
        "phase": hand.phase,
        "dealt": dealt,
        "held": None if state is None else state.held[where],
        "contract": None if state is None else state.contract,
        "legal_calls": [],
        "legal_plays": [],
        "next_seq": hand.event_count,
        "last_hash": hand.last_hash,
    }
    if state is not None and state.to_act == where:
        out["legal_calls"] = state.legal_calls
        out["legal_plays"] = state.legal_plays
    claim = None if state is None else state.public.get("claim")
    out["may_claim"] = state is not None and where in state.may_claim
    out["claim"] = None
    if state is not None and claim is not None:
        claimer = Seat.parse(claim["claimer"])
        out["claim"] = {
            **claim,
            # the claimer's cards: shown to the three other seats while the claim waits
            "cards": state.held[claimer] if where != claimer else None,
            "to_answer": where.name in claim["waiting_for"],
        }
    return out


@bp.get("/v1/tables/<table_id>/hands/<int:number>/record")
@spec("The finished hand's cayenne-record/1", errors=(403,), path=_HAND_PATH)
def hand_record(table_id: str, number: int) -> Response:
    _, hand, _ = load_hand(table_id, number)
    if hand.record is None:
        raise Forbidden("the record (with the deal) is published when the hand is over")
    return jsonify(hand.record)


@bp.get("/v1/tables/<table_id>/hands/<int:number>/report")
@spec("The finished hand's audit report", path=_HAND_PATH)
def hand_report(table_id: str, number: int) -> Response:
    _, hand, _ = load_hand(table_id, number)
    if hand.report_id is None:
        raise NotFound("the hand is not over; its report is written at the end")
    _, report, _ = rows.get_report(services().db.connection(), hand.report_id)
    return jsonify({"id": hand.report_id, "report": report})


@bp.get("/v1/tables/<table_id>/hands/<int:number>/proof")
@spec("The finished hand's offline proof bundle", path=_HAND_PATH)
def hand_proof(table_id: str, number: int) -> Response:
    """The hand's offline proof bundle, checked by ``fairplay verify`` with the log's key."""
    _, hand, _ = load_hand(table_id, number)
    if hand.phase != "over":
        raise NotFound("the hand is not over; its proof bundle is issued at the end")
    return jsonify(services().hand_log.proof_bundle(table_id, number))
