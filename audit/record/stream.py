"""Read one big record a hand at a time: the top level first, then ``hands`` lazily.

``json.loads`` of a record builds the whole tree, about ten times the file's size in
Python objects (docs/performance.md, "One big record"). :func:`open_stream` instead
walks the record's top-level object with the standard library's own decoder
(``JSONDecoder.raw_decode``, the C scanner ``json.loads`` uses): every top-level value
but ``hands`` is decoded as usual, and ``hands`` is handed out one element at a time,
each decoded from its place in the text, so only the hand being read is a Python tree.

The stream is an optimisation, never a second definition of the format. It answers
only for a document ``json.loads`` reads the same way: valid JSON, an object whose keys
are distinct and whose ``hands`` is its last key and an array. Anything else (a syntax
error, ``hands`` before another key, a duplicate key) raises :class:`Decline`, and the
caller reads the file the ordinary way, which gives the ordinary answer (the error with
its line and column, or the JSON path of a schema problem).
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from typing import Any

__all__ = ["Decline", "RecordStream", "open_stream"]

_WS = re.compile(r"[ \t\n\r]*")
_DECODER = json.JSONDecoder()  # json.loads's defaults


def _skip(text: str, i: int) -> int:
    """The index of the first character at or after ``i`` that is not JSON white space."""
    m = _WS.match(text, i)
    return i if m is None else m.end()


class Decline(Exception):  # noqa: N818 - a signal between two modules, never shown to a user
    """The text is not one the stream reads exactly as ``json.loads``: read it whole."""


class RecordStream:
    """A record's top level (``head``, without ``hands``) and its hands, read once.

    ``hands()`` yields each element of ``hands`` as ``json.loads`` would build it, and
    then checks that nothing but the closing brace and white space follows; it raises
    :class:`Decline` at the first thing that is not so. ``count`` is the number of hands
    yielded so far. The text is let go when the hands have all been read.
    """

    def __init__(self, text: str, head: dict[str, Any], start: int) -> None:
        self.head = head
        self.count = 0
        self._text: str | None = text
        self._start = start

    def hands(self) -> Iterator[Any]:
        text = self._text
        if text is None:
            raise Decline("the hands were read already")
        self._text = None
        decode = _DECODER.raw_decode
        i = _skip(text, self._start + 1)  # past "["
        if text.startswith("]", i):
            i += 1
        else:
            while True:
                try:
                    hand, i = decode(text, i)
                except json.JSONDecodeError:
                    raise Decline("not valid JSON") from None
                self.count += 1
                yield hand
                del hand
                i = _skip(text, i)
                if text.startswith(",", i):
                    i = _skip(text, i + 1)
                elif text.startswith("]", i):
                    i += 1
                    break
                else:
                    raise Decline("not valid JSON")
        i = _skip(text, i)
        if not text.startswith("}", i) or _skip(text, i + 1) != len(text):
            raise Decline("hands is not the record's last key")


def open_stream(data: bytes) -> RecordStream:
    """The top level of a record's text up to ``hands`` (raises :class:`Decline`)."""
    try:
        text = data.decode(json.detect_encoding(data), "surrogatepass")
    except UnicodeDecodeError:
        raise Decline("not valid text") from None
    decode = _DECODER.raw_decode
    i = _skip(text, 0)
    if not text.startswith("{", i):
        raise Decline("not an object")
    i = _skip(text, i + 1)
    head: dict[str, Any] = {}
    try:
        while True:
            if not text.startswith('"', i):
                raise Decline("not valid JSON")
            key, i = decode(text, i)
            i = _skip(text, i)
            if not text.startswith(":", i) or key in head:
                raise Decline("not valid JSON, or a duplicate key")
            i = _skip(text, i + 1)
            if key == "hands":
                if not text.startswith("[", i):
                    raise Decline("hands is not an array")
                return RecordStream(text, head, i)
            head[key], i = decode(text, i)
            i = _skip(text, i)
            if not text.startswith(",", i):
                raise Decline("no hands, or not valid JSON")
            i = _skip(text, i + 1)
    except json.JSONDecodeError:
        raise Decline("not valid JSON") from None
