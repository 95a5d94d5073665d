"""Directors: the keys that may rule on an event, and the check that each ruling was theirs.

The operator grants a director's key with an event of the log of its own (table
:data:`GRANTS_TABLE`, hand :data:`GRANTS_HAND`, type ``director_grant``, signed by the log
key). A director rules by a signed write (``cayenne-fairplay/write/v1``: the method, path,
time, nonce and SHA-256 of the body, signed with the director's key); the service logs the
ruling's event on the event's chain with that request as its ``by`` (the director's id,
the path, time, nonce, the body as sent and the signature). The service states what it
did; the director's signature states what was asked, so the operator, who holds the log
key, cannot put a ruling in a director's name: :func:`check_ruling` verifies the request
with the key the grant named, the grant logged before the ruling, the request's path the
ruling's route, and every field the request and the ruling both have, equal.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import json
from collections.abc import Mapping, Sequence
from typing import Any

from audit.log.errors import KeyFormatError, LogSignatureInvalid
from audit.log.keys import Verifier
from audit.tournament.errors import TournamentError

__all__ = [
    "GRANTS_HAND",
    "GRANTS_TABLE",
    "GRANT_TYPE",
    "WRITE_CONTEXT",
    "Grants",
    "RulingNotGranted",
    "check_ruling",
    "check_rulings",
    "director_id",
    "grants_of",
    "routes_of",
    "write_message",
]

GRANTS_TABLE = "directors"
GRANTS_HAND = "grants"
GRANT_TYPE = "director_grant"
WRITE_CONTEXT = "cayenne-fairplay/write/v1"
OPERATOR = "operator"
"""Who ruled when a ruling carries no director's request: the operator (the admin token)."""

Grants = dict[str, tuple[str, int]]
"""Granted directors: id → (verifier key text, the grant's log index)."""


class RulingNotGranted(TournamentError):
    """A ruling in the name of a key no grant logged before it named."""

    code = "RULING_NOT_GRANTED"


def director_id(key: Verifier) -> str:
    """``d-`` and the first 20 hex digits of SHA-256 of the raw public key."""
    return "d-" + hashlib.sha256(key.public_key).hexdigest()[:20]


def write_message(method: str, path: str, ts: int, nonce: str, body: bytes) -> bytes:
    """The bytes a signed write's key signs (api/signing.py, docs/api.md)."""
    digest = hashlib.sha256(body).hexdigest()
    return f"{WRITE_CONTEXT}\n{method.upper()}\n{path}\n{ts}\n{nonce}\n{digest}".encode()


def routes_of(tournament: str, kind: str) -> tuple[str, ...]:
    """The paths whose signed request may rule ``kind`` on event ``tournament``."""
    base = f"/v1/tournaments/{tournament}"
    action = kind.removeprefix("tournament_")
    return {
        "tournament_create": ("/v1/tournaments",),
        "tournament_registration": (f"{base}/registration",),
        "tournament_beacon": (f"{base}/beacon",),
        "tournament_start": (f"{base}/start",),
        "tournament_deal": (f"{base}/rounds/next",),
        "tournament_round_end": (f"{base}/rounds/end", f"{base}/rounds/next"),
    }.get(kind, (f"{base}/actions/{action}",))


def grants_of(items: Sequence[Mapping[str, Any]]) -> Grants:
    """The grants of a log's items (``{index, event}``, any chains; the first grant of a
    key counts)."""
    out: Grants = {}
    for item in items:
        ev = item["event"]
        if (ev["table"], str(ev["hand"]), ev["type"]) != (GRANTS_TABLE, GRANTS_HAND, GRANT_TYPE):
            continue
        if ev["actor"] != "server":
            raise RulingNotGranted(f"log entry {item['index']}: a grant not by the service")
        out.setdefault(ev["body"]["director"], (ev["body"]["key"], int(item["index"])))
    return out


def check_ruling(
    tournament: str, kind: str, body: Mapping[str, Any], index: int | None, grants: Grants
) -> str:
    """The id of the director whose request ``body["by"]`` is; raise unless a grant
    logged before log entry ``index`` (``None``: not yet logged) names the key that
    signed it, over a path of the ruling's route and a body the ruling agrees with."""
    by = body["by"]
    who = by["director"]
    where = f"{kind} of {tournament}"
    granted = grants.get(who)
    if granted is None or (index is not None and granted[1] >= index):
        raise RulingNotGranted(
            f"{where}: {who} was not granted as a director before this ruling",
            details={"director": who, "entry": index},
        )
    if by["path"] not in routes_of(tournament, kind):
        raise RulingNotGranted(
            f"{where}: the director's request was for {by['path']!r}, not this ruling",
            details={"director": who, "entry": index},
        )
    try:
        key = Verifier.from_text(granted[0])
        signature = base64.b64decode(by["signature"], validate=True)
        key.verify(
            write_message("POST", by["path"], by["ts"], by["nonce"], by["body"].encode()),
            signature,
        )
    except (KeyFormatError, binascii.Error, ValueError, LogSignatureInvalid):
        raise LogSignatureInvalid(
            f"{where}: the director's request is not signed by {who}'s granted key",
            entry=index,
        ) from None
    try:
        asked = json.loads(by["body"]) if by["body"].strip() else {}
    except ValueError:
        asked = None
    if not isinstance(asked, dict):
        raise RulingNotGranted(f"{where}: the director's request is not a JSON object")
    if by["path"].endswith("/rounds/next"):
        return str(who)  # it names the round to start, the ruling the round it ends
    for name, value in asked.items():
        if name in ("by", "ruleset") or name not in body:
            continue
        if isinstance(value, str):
            value = value.strip()
        if value != body[name]:
            raise RulingNotGranted(
                f"{where}: {name} is {body[name]!r}, the director asked for {value!r}",
                details={"director": who, "entry": index, "path": name},
            )
    return str(who)


def check_rulings(
    tournament: str, chain: Sequence[Mapping[str, Any]], grants: Grants
) -> list[dict[str, Any]]:
    """Check every ruling of an event's chain (``{index, event}`` items); each ruling's
    log index, type, who took it (a director's id or ``operator``) and its reason."""
    out = []
    for item in chain:
        ev = item["event"]
        body = ev["body"]
        if "by" in body:
            who = check_ruling(tournament, ev["type"], body, int(item["index"]), grants)
        elif ev["type"] in _RULINGS or (ev["type"] == "tournament_round_end" and "reason" in body):
            who = OPERATOR
        else:
            continue
        ruling: dict[str, Any] = {"index": int(item["index"]), "type": ev["type"], "by": who}
        if "reason" in body:
            ruling["reason"] = body["reason"]
        out.append(ruling)
    return out


_RULINGS = (
    "tournament_create",
    "tournament_registration",
    "tournament_beacon",
    "tournament_start",
    "tournament_substitute",
    "tournament_adjust",
    "tournament_withdraw",
    "tournament_void_board",
    "tournament_remove",
)
"""The types that are always a ruling (a round's end is one when it gives a reason)."""
