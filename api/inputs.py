"""What text the service takes in: storable strings, bounded JSON, clean display names.

Every string that reaches the database or the log comes either from the service itself
or from a request: a path variable, a query parameter, a header the service reads, or a
JSON body. The request's strings are checked here, once, before a handler sees them
(:func:`check_request`, run before every request, and :func:`parse_json`, the only
parser of client JSON), so a handler never holds text it cannot store. Storable text
is valid Unicode that encodes as UTF-8 (no lone surrogate, which JSON's ``\\ud800``
escape can smuggle in) and holds no NUL (PostgreSQL's text type cannot hold one).
:meth:`api.database.Connection.execute` refuses the same text as a last line of defence.

JSON bodies are bounded in depth before they are parsed (:data:`MAX_DEPTH`): a scan of
the brackets outside strings is cheap, while Python's recursive parser overflows its
stack on a deep enough document.

Display names (players, tables) are visible text: no control characters (C0, DEL,
C1), no format characters (bidi overrides and isolates, zero-width spaces and joiners,
the byte order mark), no line or paragraph separators, so that a name cannot reorder or
hide the text around it.
"""

from __future__ import annotations

import unicodedata
from typing import Any

from flask import request

from api.errors import BadRequest
from audit.log.canonical import loads, nests_deeper
from audit.log.errors import EventError

__all__ = [
    "MAX_DEPTH",
    "check_name",
    "check_request",
    "check_text",
    "check_tree",
    "parse_json",
    "text_problem",
    "too_deep",
]

MAX_DEPTH = 64
"""The deepest nesting of arrays and objects a JSON body may have (a record needs 6)."""

_FORBIDDEN_IN_NAMES = frozenset({"Cc", "Cf", "Cs", "Co", "Zl", "Zp"})


def text_problem(text: str) -> str | None:
    """Why ``text`` cannot be stored or looked up, or ``None`` when it can."""
    if "\x00" in text:
        return "a NUL character"
    if not text.isascii():
        try:
            text.encode("utf-8")
        except UnicodeEncodeError as exc:
            return f"a lone surrogate (U+{ord(text[exc.start]):04X})"
    return None


def check_text(text: str, path: str) -> str:
    """``text``, or a 400 naming ``path`` when it cannot be stored."""
    problem = text_problem(text)
    if problem is not None:
        raise BadRequest(f"{path}: text may not hold {problem}", details={"path": path})
    return text


def _child(path: str, key: str | int) -> str:
    if isinstance(key, int):
        return f"{path}[{key}]"
    return key if path == "$" else f"{path}.{key}"


def check_tree(value: Any, path: str = "$") -> None:
    """Raise a 400 naming the JSON path of the first string (or key) that cannot be stored."""
    stack: list[tuple[Any, str]] = [(value, path)]
    while stack:
        item, where = stack.pop()
        if isinstance(item, str):
            check_text(item, where)
        elif isinstance(item, dict):
            for key, child in item.items():
                problem = text_problem(key)
                if problem is not None:
                    raise BadRequest(
                        f"{where}: an object key holds {problem}", details={"path": where}
                    )
                stack.append((child, _child(where, key)))
        elif isinstance(item, list):
            stack.extend((child, _child(where, i)) for i, child in enumerate(item))


def too_deep(data: bytes, limit: int = MAX_DEPTH) -> bool:
    """Whether arrays and objects nest deeper than ``limit`` in ``data`` (strings skipped)."""
    return nests_deeper(data, limit)


def parse_json(data: bytes, path: str = "$") -> Any:
    """Client JSON: at most :data:`MAX_DEPTH` deep, and every string storable (400 otherwise)."""
    if too_deep(data):
        raise BadRequest(
            f"{path}: the JSON nests deeper than {MAX_DEPTH} levels", details={"path": path}
        )
    try:
        value = loads(data)  # a key named twice is refused: events are signed as parsed
    except EventError as exc:
        raise BadRequest(f"{path}: {exc.message}", details={"path": path}) from None
    except (ValueError, UnicodeDecodeError) as exc:
        raise BadRequest(f"{path}: not JSON: {exc}", details={"path": path}) from None
    check_tree(value, path)
    return value


def check_request() -> None:
    """Refuse a request whose path variables or query parameters cannot be stored."""
    for name, value in (request.view_args or {}).items():
        if isinstance(value, str):
            check_text(value, name)
    for key, value in request.args.items(multi=True):
        check_text(key, key)
        check_text(value, key)


def check_name(value: object, path: str, max_length: int) -> str:
    """A display name of 1 to ``max_length`` visible characters, stripped (400 otherwise)."""
    if not isinstance(value, str) or not 1 <= len(value.strip()) <= max_length:
        raise BadRequest(f"{path}: a name of 1 to {max_length} characters", details={"path": path})
    check_text(value, path)
    for ch in value:
        if unicodedata.category(ch) in _FORBIDDEN_IN_NAMES:
            raise BadRequest(
                f"{path}: U+{ord(ch):04X} ({unicodedata.name(ch, 'a control character')}) "
                "is not allowed in a name: no control, format (bidi, zero-width) or "
                "separator characters",
                details={"path": path},
            )
    return value.strip()
