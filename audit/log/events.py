"""Signed hand events and their one canonical encoding.

Canonical JSON (RFC 8785, JCS) restricted to I-JSON without fractions: objects with
string keys sorted by their UTF-16 code units, no whitespace, strings escaped as
ECMAScript's ``JSON.stringify`` does (``\\b \\f \\n \\r \\t \\" \\\\``, other control
characters as lowercase ``\\u00xx``, everything else as UTF-8), integers in
``[-(2**53-1), 2**53-1]``; floats, NaN and lone surrogates are refused. With integers
only, this is byte-for-byte RFC 8785.

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
import re
import sys
from collections.abc import Mapping
from typing import Any

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
MAX_SAFE_INT = 2**53 - 1
REQUIRED_FIELDS = ("v", "origin", "table", "hand", "seq", "prev", "actor", "key", "type", "body")
OPTIONAL_FIELDS = ("time", "signature")

_json_string = json.JSONEncoder(ensure_ascii=False).encode
_json_sorted = json.JSONEncoder(
    ensure_ascii=False, sort_keys=True, separators=(",", ":"), check_circular=False
).encode


def _plain(obj: Any) -> bool:
    """Whether the C encoder writes ``obj`` canonically as it is: plain dicts whose keys
    are strings of the Basic Multilingual Plane (where code point order is UTF-16 order),
    lists, tuples, strings, ``None``, booleans and I-JSON integers, nothing else."""
    kind = type(obj)
    if kind is str or kind is bool or obj is None:
        return True
    if kind is int:
        return bool(-MAX_SAFE_INT <= obj <= MAX_SAFE_INT)
    if kind is dict:
        for key, value in obj.items():
            if type(key) is not str or not (key.isascii() or max(key) <= "\uffff"):
                return False
            if type(value) is not str and not _plain(value):  # strings inline: the most
                return False
        return True
    if kind is list or kind is tuple:
        return all(type(v) is str or _plain(v) for v in obj)
    return False


def _encode(obj: Any, out: list[str], path: str) -> None:
    if obj is None:
        out.append("null")
    elif obj is True:
        out.append("true")
    elif obj is False:
        out.append("false")
    elif isinstance(obj, int):
        if not -MAX_SAFE_INT <= obj <= MAX_SAFE_INT:
            raise EventError(f"{path}: integer outside the I-JSON range")
        out.append(str(int(obj)))
    elif isinstance(obj, float):
        raise EventError(f"{path}: numbers must be integers in canonical JSON")
    elif isinstance(obj, str):
        try:
            obj.encode("utf-8")
        except UnicodeEncodeError as exc:
            raise EventError(f"{path}: string contains a lone surrogate") from exc
        out.append(_json_string(obj))
    elif isinstance(obj, list | tuple):
        out.append("[")
        for i, item in enumerate(obj):
            if i:
                out.append(",")
            _encode(item, out, f"{path}[{i}]")
        out.append("]")
    elif isinstance(obj, Mapping):
        keys = list(obj.keys())
        for k in keys:
            if not isinstance(k, str):
                raise EventError(f"{path}: object keys must be strings")
        out.append("{")
        for i, k in enumerate(sorted(keys, key=lambda s: s.encode("utf-16-be"))):
            if i:
                out.append(",")
            _encode(k, out, path)
            out.append(":")
            _encode(obj[k], out, f"{path}.{k}")
        out.append("}")
    else:
        raise EventError(f"{path}: {type(obj).__name__} is not a JSON value")


def unique_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    """``json.loads``' ``object_pairs_hook`` for signed and hashed documents: an object
    that names a key twice is refused (parsers differ on which value wins, so a signer
    and a verifier could read two different events from one text)."""
    out: dict[str, Any] = {}
    for key, value in pairs:
        if key in out:
            raise EventError(f"duplicate key {key!r} in one JSON object")
        out[key] = value
    return out


_STRING = re.compile(rb'"[^"\\]*(?:\\.[^"\\]*)*"', re.DOTALL)
_NOT_BRACKETS = bytes(b for b in range(256) if b not in b"[]{}")

_SAFE_RECURSION_LIMIT = 2000
"""Under this recursion limit (Python's default is 1000) the C parser meets the limit, and
raises ``RecursionError``, long before the C stack runs out. Code that raises the limit
(hypothesis does, around each example) would let a deep enough document overflow the C
stack, a crash rather than an error: :func:`loads` then counts the nesting first."""


def nests_deeper(data: bytes, limit: int) -> bool:
    """Whether arrays and objects nest deeper than ``limit`` in ``data`` (strings skipped)."""
    brackets = _STRING.sub(b"", data).translate(None, _NOT_BRACKETS)
    if brackets.count(b"[") + brackets.count(b"{") <= limit:
        return False  # fewer openings than the limit: no deeper nesting either
    depth = 0
    for b in brackets:
        depth += 1 if b in b"[{" else -1
        if depth > limit:
            return True
    return False


def loads(text: str | bytes) -> Any:
    """Parse JSON text that is signed or hashed: :func:`json.loads` with :func:`unique_keys`
    (raises :class:`EventError` for a repeated key, bytes that are not UTF-8, nesting too
    deep for the parser or an integer too long for ``int``; ``ValueError`` for text that
    is not JSON)."""
    if sys.getrecursionlimit() > _SAFE_RECURSION_LIMIT:
        data = text.encode("utf-8", "surrogatepass") if isinstance(text, str) else text
        if nests_deeper(data, _SAFE_RECURSION_LIMIT // 2):
            raise EventError("$: the JSON nests too deep to be read")
    try:
        return json.loads(text, object_pairs_hook=unique_keys)
    except UnicodeDecodeError as exc:
        raise EventError(f"$: not UTF-8 text: {exc.reason} at byte {exc.start}") from None
    except RecursionError:
        raise EventError("$: the JSON nests too deep to be read") from None
    except json.JSONDecodeError:
        raise
    except ValueError as exc:  # an integer over sys.get_int_max_str_digits() digits
        raise EventError(f"$: {exc}"[:200]) from None


def canonical_json(obj: Any) -> bytes:
    """The RFC 8785 canonical UTF-8 bytes of ``obj`` (integers only, see module doc)."""
    if _plain(obj):  # the common case, written by the C encoder (3 times faster)
        try:
            return _json_sorted(obj).encode("utf-8")
        except UnicodeEncodeError:
            pass  # a lone surrogate: refused below, with its path
    out: list[str] = []
    _encode(obj, out, "$")
    return "".join(out).encode("utf-8")


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
