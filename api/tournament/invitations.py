"""Partnerships formed by invitation, and an entrant's own withdrawal (docs/tournaments.md,
"Entering in the browser").

A pair forms when two entrants' signed registrations name each other, so each must know
the other's player id before registering. An invitation settles that: the inviter (a
signed write) gets a short code, open to whoever holds it or addressed to a player named
by their player name; the partner accepts it (a signed write), which fixes the pair, and
then registers naming the inviter; the inviter's page, seeing the acceptance, registers
naming the partner. Each keeps their own seed in their own browser: the service learns
only the two commitments, as from any registration. An invitation is a row of
``api_tournament_invitations`` (not a log event: the log holds the registrations).

Withdrawal before the start is the entrant's own signed ``tournament_leave``, the
event after its registration in its chain: nothing but the entrant's key signs it.
"""

from __future__ import annotations

import secrets
from typing import Any

from api import rows
from api.database import Connection
from api.tournament import registration
from api.tournament.chain import Desk, entrant_chain
from api.tournament.checks import bad
from api.tournament.event_rows import BEFORE_START
from audit.errors import NotFoundError, RefusedError, StateConflict, WrongPhaseError
from audit.log.events import event_hash
from audit.tournament import online

__all__ = [
    "ALPHABET",
    "CODE_LENGTH",
    "accept",
    "cancel",
    "create",
    "mine",
    "normal_code",
    "one",
    "withdraw",
]

ALPHABET = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"
"""Crockford's base 32: no I, L, O or U, so a code read aloud or copied by hand survives."""
CODE_LENGTH = 10
"""Ten characters, 50 bits: not guessed in the life of an event."""

_COLUMNS = "code, tournament_id, inviter, invitee, accepted_by, created_at, accepted_at"


def normal_code(text: str) -> str:
    """A code as typed (any case, spaces or dashes between groups) in its stored form;
    422 naming ``code`` when it is not one."""
    code = "".join(ch for ch in text.upper() if ch not in " -")
    if len(code) != CODE_LENGTH or any(ch not in ALPHABET for ch in code):
        raise bad("code", f"an invitation code is {CODE_LENGTH} letters and digits")
    return code


def _json(conn: Connection, row: tuple[Any, ...]) -> dict[str, Any]:
    code, tid, inviter, invitee, accepted_by, created_at, accepted_at = row
    names = rows.player_names(conn, [p for p in (inviter, invitee, accepted_by) if p])
    return {
        "code": code,
        "tournament": tid,
        "inviter": inviter,
        "inviter_name": names.get(inviter),
        "invitee": invitee,
        "invitee_name": names.get(invitee) if invitee else None,
        "accepted_by": accepted_by,
        "accepted_by_name": names.get(accepted_by) if accepted_by else None,
        "created_at": created_at,
        "accepted_at": accepted_at,
        "link": f"/tournaments/{tid}?invite={code}",
    }


def _row(conn: Connection, tid: str, code: str) -> tuple[Any, ...]:
    row = conn.one(
        f"SELECT {_COLUMNS} FROM api_tournament_invitations WHERE code = ? AND tournament_id = ?",
        (code, tid),
    )
    if row is None:
        raise NotFoundError(
            f"no invitation {code!r} to tournament {tid!r}", details={"path": "code"}
        )
    return tuple(row)


def _partner_of(conn: Connection, tid: str, player: str) -> str | None:
    """The partner an entrant's registration names, ``None`` for a player who has not
    entered (the entrants' rows are kept until the deal: invitations end at the start)."""
    row = conn.one(
        "SELECT partner FROM api_tournament_entrants WHERE tournament_id = ? AND player = ?",
        (tid, player),
    )
    return None if row is None else str(row[0])


def _open_registration(desk: Desk, conn: Connection, tid: str) -> dict[str, Any]:
    doc = desk.load(conn, tid, entrants=False)
    if doc["phase"] != "registration":
        raise WrongPhaseError(
            f"the tournament is {doc['phase']}; partners are invited while registration is open"
        )
    return doc


def _by_name(conn: Connection, name: Any, inviter: str) -> str:
    if not isinstance(name, str) or not name.strip():
        raise bad("partner_name", "a player's name")
    found = [
        str(r[0])
        for r in conn.all("SELECT id FROM api_players WHERE name = ? ORDER BY id", (name.strip(),))
    ]
    if not found:
        raise bad("partner_name", f"no player is named {name.strip()!r}")
    if len(found) > 1:
        raise bad(
            "partner_name",
            f"{len(found)} players are named {name.strip()!r}: send them an invitation link",
        )
    if found[0] == inviter:
        raise bad("partner_name", "a player is not his own partner")
    return found[0]


def create(desk: Desk, tid: str, inviter: str, body: dict[str, Any]) -> dict[str, Any]:
    """A new invitation of ``inviter`` (its earlier unaccepted ones are dropped): open to
    whoever holds its code, or addressed to the player ``body["partner_name"]`` names."""
    conn = desk.db.connection()
    with desk.lock:
        doc = _open_registration(desk, conn, tid)
        if inviter in doc.get("removed", []) or _partner_of(conn, tid, inviter) is not None:
            raise StateConflict(
                f"{inviter} has entered this tournament already", details={"path": "Authorization"}
            )
        invitee = None
        if body.get("partner_name") is not None:
            invitee = _by_name(conn, body["partner_name"], inviter)
            if _partner_of(conn, tid, invitee) is not None:
                raise bad("partner_name", f"{body['partner_name']!r} has entered already")
        accepted = conn.one(
            "SELECT accepted_by FROM api_tournament_invitations WHERE tournament_id = ? "
            "AND inviter = ? AND accepted_by IS NOT NULL",
            (tid, inviter),
        )
        if accepted is not None:
            raise StateConflict(
                f"{accepted[0]} has accepted your invitation: enter with them",
                details={"path": "Authorization", "partner": str(accepted[0])},
            )
        code = "".join(secrets.choice(ALPHABET) for _ in range(CODE_LENGTH))
        with conn.transaction():
            conn.execute(
                "DELETE FROM api_tournament_invitations WHERE tournament_id = ? AND inviter = ?",
                (tid, inviter),
            )
            conn.execute(
                f"INSERT INTO api_tournament_invitations ({_COLUMNS}) "
                "VALUES (?, ?, ?, ?, NULL, ?, NULL)",
                (code, tid, inviter, invitee, desk.now()),
            )
        return _json(conn, _row(conn, tid, code))


def one(desk: Desk, tid: str, code: str) -> dict[str, Any]:
    """An invitation, to whoever holds its code."""
    conn = desk.db.connection()
    desk.load(conn, tid, entrants=False)  # 404 for no such event first
    return _json(conn, _row(conn, tid, normal_code(code)))


def mine(desk: Desk, tid: str, player: str) -> list[dict[str, Any]]:
    """The invitations ``player`` sent, was sent, or accepted in event ``tid``."""
    conn = desk.db.connection()
    desk.load(conn, tid, entrants=False)
    found = conn.all(
        f"SELECT {_COLUMNS} FROM api_tournament_invitations WHERE tournament_id = ? "
        "AND (inviter = ? OR invitee = ? OR accepted_by = ?) ORDER BY created_at, code",
        (tid, player, player, player),
    )
    return [_json(conn, tuple(r)) for r in found]


def accept(desk: Desk, tid: str, code: str, player: str) -> dict[str, Any]:
    """``player`` accepts the invitation: the pair is fixed (an accepted code is taken
    once; the same acceptance again changes nothing). The player then registers naming
    the inviter, and the inviter naming the player."""
    code = normal_code(code)
    conn = desk.db.connection()
    with desk.lock:
        _open_registration(desk, conn, tid)
        _, _, inviter, invitee, accepted_by, _, _ = _row(conn, tid, code)
        if accepted_by == player:
            return _json(conn, _row(conn, tid, code))  # accepted already: a retry
        if inviter == player:
            raise bad("code", "this is your own invitation: send it to your partner")
        if invitee is not None and invitee != player:
            raise RefusedError(
                "this invitation is addressed to another player", details={"path": "code"}
            )
        if accepted_by is not None:
            raise StateConflict(
                "this invitation was accepted by another player", details={"path": "code"}
            )
        mate = _partner_of(conn, tid, player)
        if mate is not None and mate != inviter:
            raise StateConflict(
                f"{player} has entered this tournament with another partner",
                details={"path": "Authorization"},
            )
        theirs = _partner_of(conn, tid, str(inviter))
        if theirs is not None and theirs != player:
            raise StateConflict(
                "the inviter has entered this tournament with another partner",
                details={"path": "code"},
            )
        with conn.transaction():
            cur = conn.execute(
                "UPDATE api_tournament_invitations SET accepted_by = ?, accepted_at = ? "
                "WHERE code = ? AND accepted_by IS NULL",
                (player, desk.now(), code),
            )
            if cur.rowcount != 1:
                raise StateConflict(
                    "this invitation was accepted by another player", details={"path": "code"}
                )
            # the player's own open invitations are void now that they have a partner
            conn.execute(
                "DELETE FROM api_tournament_invitations WHERE tournament_id = ? "
                "AND inviter = ? AND accepted_by IS NULL",
                (tid, player),
            )
        return _json(conn, _row(conn, tid, code))


def cancel(desk: Desk, tid: str, code: str, player: str) -> dict[str, Any]:
    """The inviter takes back an invitation nobody has accepted: its code no longer
    names anyone (404 from then on). Only the inviter may (403), while registration is
    open (409), and not once it is accepted (409: the pair is fixed; an entrant leaves by
    withdrawing)."""
    code = normal_code(code)
    conn = desk.db.connection()
    with desk.lock:
        _open_registration(desk, conn, tid)
        row = _row(conn, tid, code)
        _, _, inviter, _, accepted_by, _, _ = row
        if inviter != player:
            raise RefusedError(
                "only the player who made an invitation takes it back", details={"path": "code"}
            )
        if accepted_by is not None:
            raise StateConflict(
                f"{accepted_by} has accepted this invitation: enter with them, or withdraw "
                "once entered",
                details={"path": "code", "partner": str(accepted_by)},
            )
        out = _json(conn, row)
        with conn.transaction():
            cur = conn.execute(
                "DELETE FROM api_tournament_invitations WHERE code = ? AND accepted_by IS NULL",
                (code,),
            )
            if cur.rowcount != 1:  # accepted meanwhile, by another process
                raise StateConflict(
                    "this invitation was accepted meanwhile", details={"path": "code"}
                )
        return out


def withdraw(desk: Desk, tid: str, entrant: str, body: Any) -> dict[str, Any]:
    """The entrant withdraws before the start by their own signed ``tournament_leave``
    (their chain's event 1, after their registration), logged as they signed it and
    folded into the event's state as the director's ``remove`` is; their invitations are
    dropped. A retry of a withdrawal the log holds changes nothing."""
    conn = desk.db.connection()
    desk.load(conn, tid, entrants=False)  # 404 before anything else
    event = registration.signed_event(desk, conn, tid, body, online.LEAVE)
    if event["actor"] != entrant:
        raise RefusedError(
            "an entrant withdraws by their own signed event", details={"path": "event.actor"}
        )
    if event["body"]["entrant"] != entrant:
        raise bad("event.body.entrant", "must be the entrant who withdraws")
    with desk.lock:
        doc = desk.current(conn, tid)
        logged = desk.hand_log.log.hand_events(tid, entrant_chain(entrant))
        if len(logged) > 1 and logged[1]["event"] == event:
            if entrant not in doc.get("removed", []):  # logged before a crash
                online.apply(doc, online.LEAVE, event["body"])
                desk.keep(conn, doc)
            return desk.load(conn, tid)
        if doc["phase"] not in BEFORE_START:
            raise WrongPhaseError(
                f"the tournament is {doc['phase']}; an entrant withdraws before the start "
                "(after it, the director withdraws a pair)"
            )
        if entrant in doc.get("removed", []):
            raise StateConflict(
                f"{entrant} is no longer an entrant of this tournament",
                details={"path": "event.actor"},
            )
        if not logged:
            raise bad("event.actor", f"{entrant!r} has not entered this tournament")
        if event["seq"] != 1 or event["prev"] != event_hash(logged[0]["event"]):
            raise bad("event.prev", "a withdrawal follows its entrant's registration (seq 1)")
        desk.hand_log.append([event])
        online.apply(doc, online.LEAVE, event["body"])
        desk.keep(conn, doc)
        with conn.transaction():
            conn.execute(
                "DELETE FROM api_tournament_invitations WHERE tournament_id = ? "
                "AND (inviter = ? OR accepted_by = ?)",
                (tid, entrant, entrant),
            )
        return desk.load(conn, tid)
