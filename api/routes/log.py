"""The signed hand log over HTTP: key, checkpoint, entries and proofs."""

from __future__ import annotations

from flask import Blueprint, Response, jsonify, request

from api.errors import BadRequest
from api.routes import int_arg, services
from api.routes.hands import NUMBER
from api.routes.tournaments import guard_table
from api.schemas import param, spec

__all__ = [
    "MAX_COSIGNED_NOTE",
    "MAX_ENTRIES",
    "MAX_INDEX",
    "bp",
    "log_checkpoint",
    "log_consistency",
    "log_cosignatures",
    "log_entries",
    "log_hand",
    "log_inclusion",
    "log_key",
]

bp = Blueprint("log", __name__)

MAX_ENTRIES = 1000
MAX_INDEX = 2**62


@bp.get("/v1/log/key")
@spec("The log's verifier key (C2SP text)", response="text/plain")
def log_key() -> Response:
    """The log's verifier key in the C2SP ``name+hash+base64`` text form."""
    return Response(services().hand_log.verifier_key() + "\n", mimetype="text/plain")


@bp.get("/v1/log/checkpoint")
@spec(
    "The latest signed checkpoint, with its witnesses' cosignature lines",
    response="text/plain",
    query=(param("witnessed", "query", {"type": "integer", "minimum": 0, "maximum": 1000}),),
)
def log_checkpoint() -> Response:
    """The latest signed checkpoint (a C2SP signed note) with its witnesses' cosignatures;
    ``?witnessed=K``: the latest cosigned by at least K of the configured witnesses."""
    witnessed = int_arg("witnessed", 0, 0, 1000)
    return Response(services().hand_log.checkpoint(witnessed), mimetype="text/plain")


@bp.get("/v1/log/witnesses")
@spec(
    "The cosignature/v1 keys of the witnesses this service accepts (pinned by pages)",
    response={
        "type": "object",
        "properties": {"witnesses": {"type": "array", "items": {"type": "string"}}},
    },
)
def log_witnesses() -> Response:
    """The witness keys whose cosignatures this service accepts and serves (a suggestion:
    the player's page pins them on first use, like the log key; docs/browser.md)."""
    book = services().hand_log.witnesses
    keys = [k.text() for k in book.keys] if book is not None else []
    return jsonify({"witnesses": keys})


MAX_COSIGNED_NOTE = 64 * 1024


@bp.post("/v1/log/cosignatures")
@spec(
    "A witness submits a checkpoint of this log with its cosignature/v1 line(s)",
    body={"type": "string"},
    body_type="text/plain",
    response={
        "type": "object",
        "properties": {
            "origin": {"type": "string"},
            "size": {"type": "integer"},
            "accepted": {"type": "array", "items": {"type": "string"}},
            "cosigned_by": {"type": "array", "items": {"type": "string"}},
        },
    },
    errors=(403, 409, 422),
)
def log_cosignatures() -> Response:
    """A witness submits a checkpoint of this log with its cosignature line(s) appended
    (c2sp.org/tlog-cosignature v1); the service verifies and stores them."""
    hand_log = services().hand_log
    raw = request.get_data(cache=False)
    if not raw:
        raise BadRequest("body: must be a cosigned checkpoint note", details={"path": "body"})
    if len(raw) > MAX_COSIGNED_NOTE:
        raise BadRequest(
            f"body: a cosigned checkpoint is at most {MAX_COSIGNED_NOTE} bytes",
            details={"path": "body"},
        )
    try:
        body = raw.decode("utf-8")
    except UnicodeDecodeError:
        raise BadRequest("body: must be UTF-8 text", details={"path": "body"}) from None
    assert hand_log.witnesses is not None
    return jsonify(hand_log.witnesses.accept(body, now=services().config.clock()))


@bp.get("/v1/log/entries")
@spec(
    "Entries by range [start, end)",
    query=(
        param("start", "query", {"type": "integer", "minimum": 0}),
        param("end", "query", {"type": "integer", "minimum": 0}),
    ),
)
def log_entries() -> Response:
    start = int_arg("start", 0, 0, MAX_INDEX)
    end = int_arg("end", start + 100, 0, MAX_INDEX)
    if end <= start or end - start > MAX_ENTRIES:
        raise BadRequest(f"end: must be in start+1..start+{MAX_ENTRIES}", details={"path": "end"})
    s = services()
    out = s.hand_log.entries(start, end)
    hidden = s.tournaments.private_tables(
        s.db.connection(), [e["event"]["table"] for e in out["entries"]]
    )
    for e in out["entries"]:  # a duplicate board's events: withheld until the event ends
        if e["event"]["table"] in hidden:
            e["event"] = None
            e["withheld"] = "a duplicate tournament board's event, published when the event ends"
    return jsonify(out)


@bp.get("/v1/log/proofs/inclusion")
@spec(
    "Inclusion proof of an entry",
    query=(
        param("index", "query", {"type": "integer", "minimum": 0}, required=True),
        param("size", "query", {"type": "integer", "minimum": 1}),
    ),
)
def log_inclusion() -> Response:
    index = int_arg("index", 0, 0, MAX_INDEX)
    size = int_arg("size", 0, 1, MAX_INDEX)  # absent (0): the latest checkpoint
    return jsonify(services().hand_log.inclusion(index, size or None))


@bp.get("/v1/log/proofs/consistency")
@spec(
    "Consistency proof between two tree sizes",
    query=(
        param("from", "query", {"type": "integer", "minimum": 1}, required=True),
        param("to", "query", {"type": "integer", "minimum": 1}),
    ),
)
def log_consistency() -> Response:
    first = int_arg("from", 1, 1, MAX_INDEX)
    second = int_arg("to", 0, 1, MAX_INDEX)  # absent (0): the latest checkpoint
    return jsonify(services().hand_log.consistency(first, second or None))


@bp.get("/v1/log/hands/<table_id>/<int:number>")
@spec("Inclusion of every event of a hand (its proof bundle)", path={"number": NUMBER})
def log_hand(table_id: str, number: int) -> Response:
    """Inclusion of every event of a hand (the hand's offline proof bundle)."""
    guard_table(table_id)
    return jsonify(services().hand_log.proof_bundle(table_id, number))
