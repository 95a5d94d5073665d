"""Read one big record a hand at a time: the top level first, then ``hands`` lazily.

``json.loads`` of a record builds the whole tree, about ten times the file's size in
Python objects (docs/performance.md, "One big record"). :func:`open_stream` instead
walks the record's top-level object with the standard library's own decoder
(``JSONDecoder.raw_decode``, the C scanner ``json.loads`` uses): every top-level value
but ``hands`` is decoded as usual, and ``hands`` is handed out one element at a time,
each decoded from its place in the text, so only the hand being read is a Python tree.
Read from a file, the text itself is never whole either: it is decoded a chunk at a
time (about a megabyte), and what has been read is dropped.

The stream is an optimisation, never a second definition of the format. It answers
only for a document ``json.loads`` reads the same way: valid JSON, an object whose keys
are distinct and whose ``hands`` is its last key and an array. Anything else (a syntax
error, ``hands`` before another key, a duplicate key) raises :class:`Decline`, and the
caller reads the file the ordinary way, which gives the ordinary answer (the error with
its line and column, or the JSON path of a schema problem).
"""

from __future__ import annotations

import codecs
import io
import json
import re
from collections.abc import Iterator
from typing import Any, BinaryIO

__all__ = ["CHUNK", "Decline", "RecordStream", "open_stream"]

CHUNK = 1 << 20
"""Bytes read from the file at a time."""

_WS = re.compile(r"[ \t\n\r]*")
_DECODER = json.JSONDecoder()  # json.loads's defaults


class Decline(Exception):  # noqa: N818 - a signal between two modules, never shown to a user
    """The text is not one the stream reads exactly as ``json.loads``: read it whole."""


class _Text:
    """The record's text, decoded a chunk at a time as ``json.loads`` decodes bytes.

    ``buf[pos:]`` is the text not yet read; everything before ``pos`` may be dropped.
    A value is decoded only when the text after it is there too (or the file has
    ended), so a number cut by a chunk's end is never taken for a shorter one.
    """

    def __init__(self, source: BinaryIO, chunk: int) -> None:
        self._source = source
        self._chunk = chunk
        first = source.read(max(chunk, 4))  # enough to tell the encoding
        encoding = json.detect_encoding(first)  # what json.loads(bytes) does
        self._decoder = codecs.getincrementaldecoder(encoding)("surrogatepass")
        self.buf = ""
        self.pos = 0
        self.ended = False
        self._feed(first)

    def _feed(self, data: bytes) -> None:
        try:
            text = self._decoder.decode(data, final=not data)
        except UnicodeDecodeError:
            raise Decline("not valid text") from None
        if not data:
            self.ended = True
        self.buf = self.buf[self.pos :] + text
        self.pos = 0

    def more(self) -> None:
        """Read on: at least a chunk, and at least as much as is held (so that a value
        that keeps failing to decode is read to the end in linear time)."""
        if self.ended:
            raise Decline("not valid JSON")
        held = len(self.buf) - self.pos
        self._feed(self._source.read(max(self._chunk, held)))

    def skip(self) -> None:
        """Move past JSON white space (reading on as needed)."""
        while True:
            m = _WS.match(self.buf, self.pos)
            self.pos = self.pos if m is None else m.end()
            if self.pos < len(self.buf) or self.ended:
                return
            self.more()

    def at(self, char: str) -> bool:
        """Whether the next character (after white space) is ``char``."""
        self.skip()
        return self.buf.startswith(char, self.pos)

    def value(self) -> Any:
        """Decode the value at the current place (after white space)."""
        self.skip()
        while True:
            try:
                obj, end = _DECODER.raw_decode(self.buf, self.pos)
            except json.JSONDecodeError:
                self.more()  # raises Decline at the end of the file
                continue
            if end < len(self.buf) or self.ended:
                self.pos = end
                return obj
            self.more()


class RecordStream:
    """A record's top level (``head``, without ``hands``) and its hands, read once.

    ``hands()`` yields each element of ``hands`` as ``json.loads`` would build it, and
    then checks that nothing but the closing brace and white space follows; it raises
    :class:`Decline` at the first thing that is not so. ``count`` is the number of hands
    yielded so far. The text is let go when the hands have all been read.
    """

    def __init__(self, text: _Text, head: dict[str, Any]) -> None:
        self.head = head
        self.count = 0
        self._text: _Text | None = text

    def hands(self) -> Iterator[Any]:
        text = self._text
        if text is None:
            raise Decline("the hands were read already")
        self._text = None
        text.pos += 1  # past "["
        if text.at("]"):
            text.pos += 1
        else:
            while True:
                hand = text.value()
                self.count += 1
                yield hand
                del hand
                if text.at(","):
                    text.pos += 1
                elif text.at("]"):
                    text.pos += 1
                    break
                else:
                    raise Decline("not valid JSON")
        if not text.at("}"):
            raise Decline("hands is not the record's last key")
        text.pos += 1
        text.skip()
        if text.pos != len(text.buf):
            raise Decline("hands is not the record's last key")


def open_stream(source: bytes | BinaryIO, chunk: int = CHUNK) -> RecordStream:
    """The top level of a record's text (bytes, or a binary file read ``chunk`` bytes at a
    time) up to ``hands`` (raises :class:`Decline`)."""
    if chunk < 1:
        raise ValueError("chunk must be at least one byte")
    text = _Text(io.BytesIO(source) if isinstance(source, bytes) else source, chunk)
    if not text.at("{"):
        raise Decline("not an object")
    text.pos += 1
    head: dict[str, Any] = {}
    while True:
        if not text.at('"'):
            raise Decline("not valid JSON")
        key = text.value()
        if not text.at(":") or key in head:
            raise Decline("not valid JSON, or a duplicate key")
        text.pos += 1
        if key == "hands":
            if not text.at("["):
                raise Decline("hands is not an array")
            return RecordStream(text, head)
        head[key] = text.value()
        if not text.at(","):
            raise Decline("no hands, or not valid JSON")
        text.pos += 1
