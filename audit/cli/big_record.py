"""One record audited as a stream: its hands read, audited and written one at a time.

``fairplay audit RECORD`` with one record tries this first (docs/performance.md, "One
big record"): the record's hands are read one by one (:mod:`audit.record.lazyload`)
through the native fast path (:func:`audit.native.audit_stream`), and with
the report is written as it is made, each hand's entry built when it is written
(twice for text: the table, then the explanations; for html, beside the hand read
from the file again, whose deal the page draws), so neither the record's tree nor the
report's is ever whole in memory. The report is byte for byte the one
:func:`audit.auditor.audit_document` gives. Whenever the stream cannot answer (the
fast path is off or declines, the record is not read exactly as ``json.loads`` reads
it, the file changed between the two readings of html), :func:`audit_streamed`
returns ``None`` and nothing has been written: the caller audits the record the
ordinary way.
"""

from __future__ import annotations

import json
import os
import shutil
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from audit.cli.output import OutputError
from audit.native import Entries, audit_stream
from audit.record.codec import collector_paused
from audit.record.fastload import load_hand, top_level
from audit.record.lazyload import Decline, open_stream
from audit.rules.model import HandRecord

__all__ = ["audit_streamed", "json_chunks"]

_MARK = "\x00hands"


def json_chunks(report: dict[str, Any], hands: Iterator[dict[str, Any]]) -> Iterator[str]:
    """``json.dumps(report, indent=1) + "\\n"`` with ``hands`` as the report's ``hands``,
    in pieces: the frame, then each hand's JSON as it comes (at least one hand)."""
    frame = json.dumps({**report, "hands": [_MARK]}, indent=1)
    before, mark, after = frame.partition("  " + json.dumps(_MARK))
    if not mark:
        raise AssertionError("the report's frame lost its mark")
    yield before
    sep = "  "
    for h in hands:
        yield sep + json.dumps(h, indent=1).replace("\n", "\n  ")
        sep = ",\n  "
    yield after + "\n"


def audit_streamed(path: Path, alpha: float, fmt: str, target: Path | None) -> str | None:
    """Audit one record as a stream and write its report (to ``target``, or standard
    output); returns the verdict, or ``None`` when the stream does not answer."""
    try:
        source = open(path, "rb")  # noqa: SIM115 - closed below, once the hands are read
    except OSError:
        return None  # the ordinary path reports it
    # The collector paused while the record is read (a JSON tree holds no cycle), and
    # left as it was while the report is written: the JSON encoder's closures make a
    # cycle per call, a leak of about a third of the file's size if never collected.
    try:
        stamp = _stamp(os.fstat(source.fileno()))
        with collector_paused():
            stream = open_stream(source)
            report = audit_stream(stream, alpha)
    except (Decline, OSError):
        return None
    finally:
        source.close()
    if report is None:
        return None
    hands: Entries = report["hands"]
    if fmt == "html":
        from audit.report.html import html_chunks

        top = top_level({**stream.head, "hands": []})
        if top is None:
            return None
        chunks: Iterator[str] = html_chunks(
            report, _record_hands(path, stamp), top[2], f"Audit of {path.name}"
        )
    elif fmt == "text":
        from audit.report.text import text_lines

        players = stream.head.get("players")
        lines = text_lines(
            report,
            str(path),
            players=players if isinstance(players, dict) else None,
            dealers=hands.dealers,
        )
        chunks = (line + "\n" for line in lines)
    else:
        chunks = json_chunks(report, iter(hands))
    if not _write(target, chunks):
        return None
    return str(report["verdict"])


def _stamp(st: os.stat_result) -> tuple[int, int, int, int]:
    return (st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns)


def _record_hands(path: Path, stamp: tuple[int, int, int, int]) -> Iterator[HandRecord]:
    """The record's hands, typed, read from the file again one at a time (the HTML page
    draws each deal); :class:`Decline` if a hand is not certainly valid or the file is
    not the one audited."""
    try:
        with open(path, "rb") as source:
            if _stamp(os.fstat(source.fileno())) != stamp:
                raise Decline("the file changed while it was audited")
            for i, raw in enumerate(open_stream(source).hands()):
                hand = load_hand(i, raw)
                if hand is None:
                    raise Decline("a hand the loader is not sure of")
                yield hand
            if _stamp(os.fstat(source.fileno())) != stamp:
                raise Decline("the file changed while it was read")
    except OSError:
        raise Decline("the file could not be read again") from None


def _write(target: Path | None, chunks: Iterator[str]) -> bool:
    """Write the report as it is made, to a file put in place at the end (to standard
    output, through a temporary file); ``False`` and nothing written on :class:`Decline`."""
    tmp = None if target is None else target.with_name(target.name + ".tmp")
    try:
        with (
            tempfile.TemporaryFile("w+", encoding="utf-8")
            if tmp is None
            else open(tmp, "w", encoding="utf-8") as out
        ):
            try:
                for chunk in chunks:
                    out.write(chunk)
            except Decline:
                out.close()
                if tmp is not None:
                    tmp.unlink()
                return False
            if tmp is None:
                out.seek(0)
                shutil.copyfileobj(out, sys.stdout)
        if tmp is not None and target is not None:
            tmp.replace(target)
    except OSError as exc:
        raise OutputError(f"cannot write {target or 'the report'}: {exc.strerror or exc}") from None
    return True
