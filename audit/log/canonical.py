"""The one canonical encoding of what is signed or hashed, and the strict reader of it.

Canonical JSON (RFC 8785, JCS) restricted to I-JSON without fractions: objects with
string keys sorted by their UTF-16 code units, no whitespace, strings escaped as
ECMAScript's ``JSON.stringify`` does (``\\b \\f \\n \\r \\t \\" \\\\``, other control
characters as lowercase ``\\u00xx``, everything else as UTF-8), integers in
``[-(2**53-1), 2**53-1]``; floats, NaN and lone surrogates are refused. With integers
only, this is byte-for-byte RFC 8785.

:func:`canonical_json` writes it; :func:`loads` reads signed or hashed text, refusing an
object that names a key twice. Its own module so that the events (:mod:`audit.log.events`,
which re-exports these names) and the schemas' size bound (:mod:`audit.log.schemas`),
which the events admit with, share one encoding without importing each other.
"""

from __future__ import annotations

import json
import re
import sys
from collections.abc import Mapping
from typing import Any

from audit.log.errors import EventError

__all__ = ["MAX_SAFE_INT", "canonical_json", "loads", "nests_deeper", "unique_keys"]

MAX_SAFE_INT = 2**53 - 1

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
