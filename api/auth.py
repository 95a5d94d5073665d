"""Who is asking: the administrator's bearer token and players' signed reads."""

from __future__ import annotations

import hmac

from flask import request

from api.config import Config
from api.database import Connection
from api.errors import Forbidden, InvalidSignature, Unauthorized
from api.rows import get_player
from api.signing import parse_player_key, parse_read_header, read_message
from audit.errors import NotFoundError
from audit.log.errors import LogSignatureInvalid

__all__ = ["is_admin", "require_admin", "signed_reader"]


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
    header = request.headers.get("Authorization")
    if not header or header.startswith("Bearer "):
        return None
    cred = parse_read_header(header)
    now = config.clock()
    if abs(now - cred.ts) > config.signature_window:
        raise Unauthorized(
            f"signed request expired: ts must be within {config.signature_window}s "
            "of the server clock",
            details={"server_time": int(now)},
        )
    try:
        player = get_player(conn, cred.player)
    except NotFoundError:
        raise InvalidSignature(f"unknown player {cred.player!r}") from None
    path = request.full_path if request.query_string else request.path
    try:
        parse_player_key(player.public_key).verify(
            read_message(request.method, path, cred.ts), cred.signature
        )
    except LogSignatureInvalid:
        raise InvalidSignature(
            "the request's signature does not verify with the player's key"
        ) from None
    return cred.player
