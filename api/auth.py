"""Who is asking: the administrator's bearer token and players' signed reads."""

from __future__ import annotations

import base64
import hashlib
import hmac
from collections.abc import Callable
from typing import Any

from flask import request

from api.config import Config
from api.database import Connection
from api.errors import Conflict, Forbidden, InvalidSignature, Unauthorized
from api.rows import get_player
from api.signing import (
    ReadCredential,
    parse_player_key,
    parse_read_header,
    read_message,
    write_message,
)
from audit.errors import NotFoundError
from audit.log.errors import LogSignatureInvalid
from audit.tournament.directors import Grants

__all__ = [
    "is_admin",
    "director_reader",
    "once",
    "require_admin",
    "signed_director",
    "signed_reader",
    "signed_writer",
]


def is_admin(config: Config) -> bool:
    header = request.headers.get("Authorization", "")
    scheme, _, token = header.partition(" ")
    if scheme != "Bearer" or not config.admin_token:
        return False
    return hmac.compare_digest(token.encode(), config.admin_token.encode())


def require_admin(config: Config) -> None:
    if not config.admin_token:
        raise Forbidden("administration is disabled (no admin token configured)")
    if not request.headers.get("Authorization", "").startswith("Bearer "):
        raise Unauthorized("this needs the administrator's bearer token")
    if not is_admin(config):
        raise Forbidden("the administrator's token does not match")


def signed_reader(conn: Connection, config: Config) -> str | None:
    """The player who signed this request, ``None`` when unsigned; raises when forged."""
    cred = _credential()
    if cred is None:
        return None
    _verify(conn, config, cred, lambda path: read_message(request.method, path, cred.ts), "")
    return cred.player


def signed_writer(conn: Connection, config: Config) -> tuple[str, str] | None:
    """The player who signed this write (its body and nonce, api/signing.py) and the
    nonce, ``None`` when unsigned; raises when forged, expired or without a nonce."""
    cred = _credential()
    if cred is None:
        return None
    nonce = cred.nonce
    if nonce is None:
        raise Unauthorized(
            "Authorization: a write is signed with a nonce and its body "
            "(cayenne-fairplay/write/v1)",
            details={"path": "Authorization"},
        )
    body = request.get_data()
    _verify(
        conn,
        config,
        cred,
        lambda path: write_message(request.method, path, cred.ts, nonce, body),
        " (its method, path, time, nonce and body)",
    )
    return cred.player, nonce


def _credential() -> ReadCredential | None:
    header = request.headers.get("Authorization")
    if not header or header.startswith("Bearer "):
        return None
    return parse_read_header(header)


def _window(config: Config, cred: ReadCredential) -> None:
    now = config.clock()
    if abs(now - cred.ts) > config.signature_window:
        raise Unauthorized(
            f"signed request expired: ts must be within {config.signature_window}s "
            "of the server clock",
            details={"server_time": int(now)},
        )


def _verify(
    conn: Connection,
    config: Config,
    cred: ReadCredential,
    message: Callable[[str], bytes],
    covers: str,
) -> None:
    """Raise unless ``cred`` is within the clock's window and its signature, over
    ``message(path)``, verifies with the registered player's key."""
    _window(config, cred)
    try:
        player = get_player(conn, cred.player)
    except NotFoundError:
        raise InvalidSignature(f"unknown player {cred.player!r}") from None
    path = request.full_path if request.query_string else request.path
    try:
        parse_player_key(player.public_key).verify(message(path), cred.signature)
    except LogSignatureInvalid:
        raise InvalidSignature(
            f"the request's signature does not verify with the player's key{covers}"
        ) from None


def signed_director(config: Config, grants: Grants) -> dict[str, Any] | None:
    """The ruling's ``by`` (audit/tournament/directors.py) of a write signed by a granted
    director (api/signing.py, with a nonce), ``None`` when the request is not signed;
    403 when the key is no granted director's, 401 when forged or expired. The caller
    takes the nonce once."""
    cred = _credential()
    if cred is None:
        return None
    if cred.nonce is None:
        raise Unauthorized(
            "Authorization: a ruling is signed with a nonce and its body "
            "(cayenne-fairplay/write/v1)",
            details={"path": "Authorization"},
        )
    granted = grants.get(cred.player)
    if granted is None:
        raise Forbidden(
            f"{cred.player} is not a granted director: the operator grants a director's "
            "key (fairplay director add KEY)",
            details={"path": "Authorization", "director": cred.player},
        )
    _window(config, cred)
    path = request.full_path if request.query_string else request.path
    body = request.get_data()
    try:
        parse_player_key(granted[0]).verify(
            write_message(request.method, path, cred.ts, cred.nonce, body), cred.signature
        )
    except LogSignatureInvalid:
        raise InvalidSignature(
            "the ruling's signature does not verify with the director's granted key "
            "(its method, path, time, nonce and body)"
        ) from None
    try:
        text = body.decode()
    except UnicodeDecodeError:
        raise InvalidSignature("the ruling's body is not UTF-8") from None
    return {
        "director": cred.player,
        "path": path,
        "ts": cred.ts,
        "nonce": cred.nonce,
        "body": text,
        "signature": base64.b64encode(cred.signature).decode(),
    }


def once(conn: Connection, nonce: str, now: float, config: Config) -> None:
    """409 if this signed write was taken already (``nonce``: its signer's id and nonce):
    a player's nonce opens one bot table, a director's takes one ruling (the same
    Authorization header, replayed within its window, would act twice). Kept as a row of
    the rate buckets' table, so the rule holds across workers and hosts."""
    used = "bot-table-signature"  # the bucket's name since the first signed write
    digest = hashlib.sha256(nonce.encode()).hexdigest()
    with conn.transaction():
        conn.execute(
            "DELETE FROM api_rate_buckets WHERE bucket = ? AND updated < ?",
            (used, now - 2 * config.signature_window),
        )
        cur = conn.execute(
            "INSERT INTO api_rate_buckets (bucket, client, tokens, updated) VALUES (?, ?, ?, ?) "
            "ON CONFLICT (bucket, client) DO NOTHING",
            (used, digest, 0.0, now),
        )
    if cur.rowcount != 1:
        raise Conflict(
            "Authorization: this signed request was used already; sign a new one",
            details={"path": "Authorization"},
        )


def director_reader(config: Config, grants: Grants) -> str | None:
    """The granted director who signed this read (api/signing.py, no nonce), ``None``
    when the request is not signed by a granted director's id; raises when forged or
    expired. A director reads an event's private tables (their public state: never a
    card not yet played, which only a seat's own signed read returns)."""
    cred = _credential()
    if cred is None or cred.player not in grants:
        return None
    _window(config, cred)
    path = request.full_path if request.query_string else request.path
    try:
        parse_player_key(grants[cred.player][0]).verify(
            read_message(request.method, path, cred.ts), cred.signature
        )
    except LogSignatureInvalid:
        raise InvalidSignature(
            "the read's signature does not verify with the director's granted key"
        ) from None
    return cred.player
