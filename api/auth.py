"""Who is asking: the administrator's bearer token and players' signed reads."""

from __future__ import annotations

import hmac
from collections.abc import Callable

from flask import request

from api.config import Config
from api.database import Connection
from api.errors import Forbidden, InvalidSignature, NotFound, Unauthorized
from api.rows import get_player
from api.signing import (
    ReadCredential,
    parse_player_key,
    parse_read_header,
    read_message,
    write_message,
)
from audit.log.errors import LogSignatureInvalid

__all__ = ["is_admin", "require_admin", "signed_reader", "signed_writer"]


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


def _verify(
    conn: Connection,
    config: Config,
    cred: ReadCredential,
    message: Callable[[str], bytes],
    covers: str,
) -> None:
    """Raise unless ``cred`` is within the clock's window and its signature, over
    ``message(path)``, verifies with the registered player's key."""
    now = config.clock()
    if abs(now - cred.ts) > config.signature_window:
        raise Unauthorized(
            f"signed request expired: ts must be within {config.signature_window}s "
            "of the server clock",
            details={"server_time": int(now)},
        )
    try:
        player = get_player(conn, cred.player)
    except NotFound:
        raise InvalidSignature(f"unknown player {cred.player!r}") from None
    path = request.full_path if request.query_string else request.path
    try:
        parse_player_key(player.public_key).verify(message(path), cred.signature)
    except LogSignatureInvalid:
        raise InvalidSignature(
            f"the request's signature does not verify with the player's key{covers}"
        ) from None
