"""Signed hand events: their fields, signature, hash and checks.

Their one canonical encoding is :mod:`audit.log.canonical`'s (RFC 8785, integers only).

An event is a JSON object (its JSON Schemas, and the admission rule, are in
:mod:`audit.log.schemas`)::

    {"v": 1, "origin": LOG ORIGIN, "table": str, "hand": str, "seq": int >= 0,
     "prev": hex SHA-256 of the previous event of the hand, or null when seq is 0,
     "actor": str (player or service id), "key": signer's C2SP verifier key text,
     "type": str, "body": object, ["time": str (optional, RFC 3339 in UTC with Z)],
     "signature": base64 Ed25519 signature}

The signature covers ``b"cayenne-fairplay/event/v1\\n" + canonical_json(event without
"signature")``; the event hash (``prev`` of the next event) is the hex SHA-256 of the
canonical JSON of the whole signed event. The Merkle leaf of an event is its canonical
JSON bytes.
"""

from __future__ import annotations

import base64
import binascii
import functools
import hashlib
import json
from collections.abc import Mapping
from typing import Any

from audit.log.canonical import (
    MAX_SAFE_INT,
    _json_sorted,
    _plain,
    canonical_json,
    loads,
    unique_keys,
)
from audit.log.errors import EventError, KeyFormatError, LogSignatureInvalid
from audit.log.keys import Signer, Verifier
from audit.log.schemas import admit_event

__all__ = [
    "EVENT_VERSION",
    "MAX_SAFE_INT",
    "OPTIONAL_FIELDS",
    "REQUIRED_FIELDS",
    "SIGNING_CONTEXT",
    "canonical_json",
    "check_event",
    "event_hash",
    "event_verifier",
    "loads",
    "make_event",
    "parse_event",
    "sign_event",
    "signature_mismatch",
    "signature_parts",
    "signed_encodings",
    "signing_input",
    "unique_keys",
    "verify_event",
]

EVENT_VERSION = 1
SIGNING_CONTEXT = b"cayenne-fairplay/event/v1\n"
REQUIRED_FIELDS = ("v", "origin", "table", "hand", "seq", "prev", "actor", "key", "type", "body")
OPTIONAL_FIELDS = ("time", "signature")


def event_hash(event: Mapping[str, Any]) -> str:
    """Hex SHA-256 of the canonical JSON of the whole (signed) event."""
    return hashlib.sha256(canonical_json(event)).hexdigest()


def signing_input(event: Mapping[str, Any]) -> bytes:
    """The bytes an actor signs: the context string and the event without its signature."""
    unsigned = {k: v for k, v in event.items() if k != "signature"}
    return SIGNING_CONTEXT + canonical_json(unsigned)


def signed_encodings(event: Mapping[str, Any]) -> tuple[bytes, bytes]:
    """``(canonical_json(event), signing_input(event))``, the value checked once for the
    C encoder (a verifier of many events needs both of each)."""
    unsigned = {k: v for k, v in event.items() if k != "signature"}
    if _plain(event):  # then the event without its signature is plain too
        try:
            whole = _json_sorted(event).encode("utf-8")
            return whole, SIGNING_CONTEXT + _json_sorted(unsigned).encode("utf-8")
        except UnicodeEncodeError:
            pass  # a lone surrogate: refused below, with its path
    return canonical_json(event), signing_input(event)


def check_event(event: Any, *, signed: bool = True, encodable: bool = True) -> dict[str, Any]:
    """Check the shape of an event; errors name the field. Returns it as a dict."""
    if not isinstance(event, Mapping):
        raise EventError("event must be a JSON object")
    for name in REQUIRED_FIELDS:
        if name not in event:
            raise EventError(f"event.{name}: missing")
    if signed and "signature" not in event:
        raise EventError("event.signature: missing")
    for name in event:
        if name not in REQUIRED_FIELDS and name not in OPTIONAL_FIELDS:
            raise EventError(f"event.{name}: unknown field")
    if event["v"] != EVENT_VERSION or isinstance(event["v"], bool):
        raise EventError(f"event.v: must be {EVENT_VERSION}")
    for name in ("origin", "table", "hand", "actor", "key", "type"):
        if not isinstance(event[name], str) or not event[name]:
            raise EventError(f"event.{name}: must be a non-empty string")
    seq = event["seq"]
    if isinstance(seq, bool) or not isinstance(seq, int) or not 0 <= seq <= MAX_SAFE_INT:
        raise EventError("event.seq: must be a non-negative integer")
    prev = event["prev"]
    if seq == 0:
        if prev is not None:
            raise EventError("event.prev: must be null for the first event of a hand (seq 0)")
    elif not (isinstance(prev, str) and len(prev) == 64 and _is_hex(prev)):
        raise EventError("event.prev: must be the 64-hex-digit hash of the previous event")
    if not isinstance(event["body"], Mapping):
        raise EventError("event.body: must be a JSON object")
    if "time" in event and not isinstance(event["time"], str):
        raise EventError("event.time: must be a string")
    if "signature" in event and not isinstance(event["signature"], str):
        raise EventError("event.signature: must be base64 text")
    if encodable:
        canonical_json(event)  # every value must be canonically encodable
    return dict(event)


def _is_hex(text: str) -> bool:
    return not text.strip("0123456789abcdef")  # nothing left: every character is one


def make_event(
    *,
    origin: str,
    table: str,
    hand: str | int,
    seq: int,
    prev: str | None,
    actor: str,
    type: str,
    body: Mapping[str, Any] | None = None,
    key: str = "",
    time: str | None = None,
) -> dict[str, Any]:
    """An unsigned event (``key`` is filled in by :func:`sign_event` when empty)."""
    event: dict[str, Any] = {
        "v": EVENT_VERSION,
        "origin": origin,
        "table": table,
        "hand": str(hand),
        "seq": seq,
        "prev": prev,
        "actor": actor,
        "key": key,
        "type": type,
        "body": dict(body or {}),
    }
    if time is not None:
        event["time"] = time
    return event


def sign_event(event: Mapping[str, Any], signer: Signer) -> dict[str, Any]:
    """A copy of ``event`` with ``key`` set to the signer's verifier key and signed."""
    signed = {k: v for k, v in event.items() if k != "signature"}
    signed["key"] = signer.verifier_key()
    check_event(signed, signed=False)
    signed["signature"] = base64.b64encode(signer.sign(signing_input(signed))).decode()
    admit_event(signed)  # nothing the log would refuse is signed
    return signed


@functools.lru_cache(maxsize=4096)
def _verifier(text: str) -> Verifier:
    """A key text parsed once (a log's events name a few keys many times)."""
    return Verifier.from_text(text)


def event_verifier(event: Mapping[str, Any], *, entry: int | None = None) -> Verifier:
    """The verifier named by the event's ``key`` field (a weak key is refused here)."""
    try:
        return _verifier(str(event.get("key", "")))
    except KeyFormatError as exc:
        raise LogSignatureInvalid(f"event.key: {exc.message}", entry=entry) from exc


def verify_event(
    event: Mapping[str, Any],
    public_key: Verifier | str | None = None,
    *,
    entry: int | None = None,
    _checked: bool = False,
) -> None:
    """Raise :class:`LogSignatureInvalid` unless the event is signed by its key.

    When ``public_key`` is given (a :class:`Verifier` or key text), the event's ``key``
    must be that key. ``entry`` names the log index in the error.
    """
    ev = event if _checked else check_event(event, encodable=False)
    verifier = event_verifier(ev, entry=entry)
    if public_key is not None:
        expected = (
            public_key if isinstance(public_key, Verifier) else Verifier.from_text(public_key)
        )
        if expected != verifier:
            raise LogSignatureInvalid(
                f"event is signed by {verifier.name}+{verifier.key_id}, "
                f"not by {expected.name}+{expected.key_id}",
                entry=entry,
            )
    _, message, sig = signature_parts(ev, entry=entry)
    try:
        verifier.verify(message, sig)
    except LogSignatureInvalid as exc:
        raise signature_mismatch(verifier, entry) from exc


def signature_parts(
    event: Mapping[str, Any], *, entry: int | None = None, message: bytes | None = None
) -> tuple[Verifier, bytes, bytes]:
    """What :func:`verify_event` checks of a shape-checked event before the signature
    itself: its key (a weak one is refused) and the signature's base64. Returns the
    verifier, the signing input (``message`` when the caller has it already) and the
    signature's bytes, for the check to be run later (:mod:`audit.log.sigbatch`); a
    failing check is reported as :func:`signature_mismatch`."""
    verifier = event_verifier(event, entry=entry)
    try:
        sig = base64.b64decode(event["signature"], validate=True)
    except (binascii.Error, ValueError) as exc:
        raise LogSignatureInvalid("event.signature: invalid base64", entry=entry) from exc
    if base64.b64encode(sig).decode("ascii") != event["signature"]:
        # The spare bits before "=" padding would let one signature be written several
        # ways, each giving the event another hash: only the canonical text is accepted.
        raise LogSignatureInvalid("event.signature: not canonical base64", entry=entry)
    return verifier, signing_input(event) if message is None else message, sig


def signature_mismatch(verifier: Verifier, entry: int | None = None) -> LogSignatureInvalid:
    """The error of an event whose signature does not verify under its key."""
    return LogSignatureInvalid(
        f"event signature does not verify under {verifier.name}+{verifier.key_id}",
        entry=entry,
    )


def parse_event(leaf: bytes, *, entry: int | None = None) -> dict[str, Any]:
    """Decode a stored leaf into an event; it must be exactly its canonical encoding."""
    from audit.log.errors import LogInconsistent

    try:
        event = loads(leaf.decode("utf-8"))
    except EventError as exc:
        raise LogInconsistent(f"stored entry: {exc.message}", entry=entry) from exc
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise LogInconsistent("stored entry is not valid JSON", entry=entry) from exc
    try:
        ev = check_event(event)
        if canonical_json(ev) != leaf:
            raise LogInconsistent("stored entry is not in canonical form", entry=entry)
    except EventError as exc:
        raise LogInconsistent(f"stored entry is malformed: {exc.message}", entry=entry) from exc
    return ev
