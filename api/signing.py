"""Player keys and signed read requests; actions are the log's signed events.

A player is an Ed25519 key in the C2SP verifier-key text form (``name+hash+base64``,
``audit.log.keys``); the player's id is derived from the raw key (``p-`` and the first 20
hex digits of its SHA-256), so nobody can claim an id for another key.

Every action a player takes is an event of the log's format (``audit.log.events``),
signed by the player's key and bound to the log's origin, the table, the hand, the
hand's sequence number and the hash of the hand's previous event: the HTTP body of an
action *is* the signed event.

Reads of private data (a player's own cards) carry a signed request header::

    Authorization: Cayenne-Ed25519 player=<id>,ts=<unix seconds>,sig=<base64>

where the signature covers ``cayenne-fairplay/read/v1\\n<METHOD>\\n<path?query>\\n<ts>``
and the timestamp must lie within the configured window of the server's clock.

A request that makes something outside the log (``POST /v1/bot-tables``) is a signed
write: its header also carries a ``nonce`` (32 to 64 lowercase hex digits, fresh for each
request) and the signature covers
``cayenne-fairplay/write/v1\\n<METHOD>\\n<path?query>\\n<ts>\\n<nonce>\\n<hex SHA-256 of
the body>``: the body cannot be changed, and the service takes a player's nonce once.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import re
from dataclasses import dataclass

from api.errors import BadRequest, Unauthorized
from api.inputs import check_text
from audit.log.errors import KeyFormatError, WeakKeyError
from audit.log.keys import Signer, Verifier
from audit.tournament.directors import write_message

__all__ = [
    "AUTH_SCHEME",
    "READ_CONTEXT",
    "ReadCredential",
    "WeakKey",
    "parse_player_key",
    "parse_read_header",
    "player_id",
    "read_message",
    "sign_read",
    "sign_write",
    "write_message",
]

READ_CONTEXT = "cayenne-fairplay/read/v1"
AUTH_SCHEME = "Cayenne-Ed25519"


class WeakKey(BadRequest):
    """A public key that is not a canonical Ed25519 point or is of small order (400)."""

    code = WeakKeyError.code


def parse_player_key(text: object, field: str = "public_key") -> Verifier:
    """A player's verifier key text → :class:`Verifier` (400 naming the field; the code
    is ``LOG_KEY_WEAK`` for a small-order or non-canonical key, see audit.log.ed25519)."""
    try:
        if not isinstance(text, str):
            raise KeyFormatError("expected the C2SP verifier key text name+hash+base64")
        return Verifier.from_text(text)
    except WeakKeyError as exc:
        raise WeakKey(f"{field}: {exc.message}", details={"path": field}) from None
    except KeyFormatError as exc:
        raise BadRequest(f"{field}: {exc.message}", details={"path": field}) from None


def player_id(key: Verifier) -> str:
    """``p-`` and the first 20 hex digits of SHA-256 of the raw public key."""
    return "p-" + hashlib.sha256(key.public_key).hexdigest()[:20]


def read_message(method: str, path: str, ts: int) -> bytes:
    return f"{READ_CONTEXT}\n{method.upper()}\n{path}\n{ts}".encode()


def sign_read(signer: Signer, player: str, method: str, path: str, ts: int) -> str:
    """The ``Authorization`` header value for a signed read of ``path``."""
    sig = base64.b64encode(signer.sign(read_message(method, path, ts))).decode()
    return f"{AUTH_SCHEME} player={player},ts={ts},sig={sig}"


def sign_write(
    signer: Signer, player: str, method: str, path: str, ts: int, nonce: str, body: bytes
) -> str:
    """The ``Authorization`` header value for a signed write of ``body`` to ``path``."""
    message = write_message(method, path, ts, nonce, body)
    sig = base64.b64encode(signer.sign(message)).decode()
    return f"{AUTH_SCHEME} player={player},ts={ts},nonce={nonce},sig={sig}"


@dataclass(frozen=True, slots=True)
class ReadCredential:
    player: str
    ts: int
    signature: bytes
    nonce: str | None = None
    """A signed write's nonce (``None`` in a signed read's header)."""


def parse_read_header(header: str) -> ReadCredential:
    scheme, _, rest = header.partition(" ")
    if scheme != AUTH_SCHEME:
        raise Unauthorized(f"Authorization: expected the {AUTH_SCHEME} scheme")
    fields: dict[str, str] = {}
    for part in rest.split(","):
        name, sep, value = part.strip().partition("=")
        if not sep:
            raise Unauthorized("Authorization: expected player=...,ts=...,sig=...")
        fields[name] = value
    try:
        ts = int(fields["ts"])
        player = fields["player"]
        sig = base64.b64decode(fields["sig"], validate=True)
    except (KeyError, ValueError, binascii.Error):
        raise Unauthorized("Authorization: expected player=...,ts=...,sig=...") from None
    check_text(player, "Authorization")
    nonce = fields.get("nonce")
    if nonce is not None and not _NONCE.fullmatch(nonce):
        raise Unauthorized("Authorization: nonce must be 32 to 64 lowercase hex digits")
    return ReadCredential(player, ts, sig, nonce)


_NONCE = re.compile(r"[0-9a-f]{32,64}")
