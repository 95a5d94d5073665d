"""An entrant's own routes beside the registration: partnership invitations, withdrawal
before the start (api/tournament/invitations.py), each a write signed by the player's
key (docs/api.md, "Entering an event")."""

from __future__ import annotations

from flask import Blueprint, Response, jsonify, request

from api.auth import once, signed_reader, signed_writer
from api.errors import Unauthorized
from api.ratelimit import Rate, take
from api.routes import json_body, request_body, services
from api.schemas import NAME, Schema, listing, spec
from api.tournament import invitations, public_json

__all__ = [
    "ACCEPT",
    "INVITATION",
    "INVITATION_BODY",
    "WITHDRAW",
    "accept_invitation",
    "bp",
    "cancel_invitation",
    "create_invitation",
    "get_invitation",
    "my_invitations",
    "withdraw",
]

bp = Blueprint("entrants", __name__)

_CODE = {
    "type": "string",
    "description": f"{invitations.CODE_LENGTH} letters and digits (Crockford base 32; any "
    "case, dashes and spaces ignored)",
}
INVITATION_BODY: Schema = {
    "type": "object",
    "x-error": "$: the body must be an object {partner_name?}",
    "additionalProperties": False,
    "properties": {
        "partner_name": {
            **NAME,
            "description": "the player name of the partner invited (exactly one player of "
            "that name); without it, the code is open to whoever holds it",
        }
    },
}
ACCEPT: Schema = {
    "type": "object",
    "x-error": "$: the body must be an object (empty)",
    "additionalProperties": False,
    "properties": {},
}
WITHDRAW: Schema = {
    "type": "object",
    "description": "a tournament_leave log event signed by the entrant (docs/log.md)",
}
_ID = {"type": ["string", "null"]}
INVITATION: Schema = {
    "type": "object",
    "required": ["code", "tournament", "inviter", "accepted_by", "link"],
    "properties": {
        "code": {"type": "string"},
        "tournament": {"type": "string"},
        "inviter": {"type": "string"},
        "inviter_name": _ID,
        "invitee": _ID,
        "invitee_name": _ID,
        "accepted_by": _ID,
        "accepted_by_name": _ID,
        "created_at": {"type": "string"},
        "accepted_at": _ID,
        "link": {"type": "string", "description": "the event's page with the code"},
    },
}


def _writer() -> str:
    """The player who signed this write (its nonce taken once); 401 when unsigned."""
    s = services()
    conn = s.db.connection()
    signed = signed_writer(conn, s.config)
    if signed is None:
        raise Unauthorized(
            "Authorization: sign this request, its body and a nonce with the player's key "
            "(Cayenne-Ed25519, cayenne-fairplay/write/v1)",
            details={"path": "Authorization"},
        )
    player, nonce = signed
    once(conn, f"{player} {nonce}", s.config.clock(), s.config)
    return player


@bp.post("/v1/tournaments/<tid>/invitations")
@spec(
    "Invite a partner into the event while registration is open (a signed write): a code "
    "and a link, open to whoever holds them or addressed to the player {partner_name}; the "
    "inviter's earlier unaccepted invitation is dropped",
    body=INVITATION_BODY,
    status=201,
    response=INVITATION,
    errors=(401, 409, 429),
    security="player",
)
def create_invitation(tid: str) -> tuple[Response, int]:
    s = services()
    body = request_body()
    player = _writer()
    rate = Rate(s.config.register_burst, s.config.register_per_hour)
    take(s.db.connection(), "invitation", request.remote_addr or "unknown", rate, s.config.clock())
    return jsonify(invitations.create(s.tournaments.desk, tid, player, body)), 201


@bp.get("/v1/tournaments/<tid>/invitations")
@spec(
    "The invitations the signing player sent, was sent or accepted in this event (a signed read)",
    response=listing("invitations", INVITATION),
    errors=(401,),
    security="player",
)
def my_invitations(tid: str) -> Response:
    s = services()
    player = signed_reader(s.db.connection(), s.config)
    if player is None:
        raise Unauthorized(
            "Authorization: a player reads their own invitations (a signed read)",
            details={"path": "Authorization"},
        )
    return jsonify({"invitations": invitations.mine(s.tournaments.desk, tid, player)})


@bp.get("/v1/tournaments/<tid>/invitations/<code>")
@spec(
    "An invitation, to whoever holds its code: who invites, and whether it is accepted",
    response=INVITATION,
    path={"code": _CODE},
)
def get_invitation(tid: str, code: str) -> Response:
    return jsonify(invitations.one(services().tournaments.desk, tid, code))


@bp.post("/v1/tournaments/<tid>/invitations/<code>/accept")
@spec(
    "Accept an invitation (a signed write): the pair is fixed; then register naming the "
    "inviter, who registers naming you",
    body=ACCEPT,
    response=INVITATION,
    path={"code": _CODE},
    errors=(401, 403, 409),
    security="player",
)
def accept_invitation(tid: str, code: str) -> Response:
    request_body()
    player = _writer()
    return jsonify(invitations.accept(services().tournaments.desk, tid, code, player))


@bp.post("/v1/tournaments/<tid>/invitations/<code>/cancel")
@spec(
    "The inviter takes back an invitation nobody has accepted (a signed write): its code "
    "names no one from then on",
    body=ACCEPT,
    response=INVITATION,
    path={"code": _CODE},
    errors=(401, 403, 409),
    security="player",
)
def cancel_invitation(tid: str, code: str) -> Response:
    request_body()
    player = _writer()
    return jsonify(invitations.cancel(services().tournaments.desk, tid, code, player))


@bp.post("/v1/tournaments/<tid>/entrants/<pid>/withdraw")
@spec(
    "An entrant withdraws before the start: a tournament_leave event signed by the "
    "entrant (their chain's event 1), logged as they signed it (they may not enter this "
    "event again)",
    body=WITHDRAW,
    errors=(401, 403, 409),
)
def withdraw(tid: str, pid: str) -> Response:
    s = services()
    event = json_body("event")
    return jsonify(public_json(invitations.withdraw(s.tournaments.desk, tid, pid, event)))
