"""``fairplay pbn export|import``: PBN in and out."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from audit.errors import FairplayError
from audit.record.codec import load_record, read_record_file
from audit.record.pbn import export_pbn, import_pbn

__all__ = ["register", "run_export", "run_import"]


def register(subparsers: Any) -> None:
    p: argparse.ArgumentParser = subparsers.add_parser(
        "pbn",
        help="export a record's deals and play to PBN, or import a PBN file",
        description="PBN 2.1 in and out (docs/pbn.md gives the mapping).",
    )
    sub = p.add_subparsers(dest="pbn_command", metavar="ACTION", required=True)
    e = sub.add_parser("export", help="a cayenne-record/1 file as PBN")
    e.add_argument("record", help="a cayenne-record/1 file (a voided deal is left out)")
    e.add_argument("--output", "-o", help="write here instead of standard output")
    e.set_defaults(func=run_export)
    i = sub.add_parser("import", help="a PBN file's complete boards as a cayenne-record/1 file")
    i.add_argument("pbn", help="a PBN file")
    i.add_argument("--output", "-o", help="write here instead of standard output")
    i.set_defaults(func=run_import)


def _write(text: str, output: str | None) -> None:
    if output:
        Path(output).write_text(text, encoding="utf-8")
    else:
        sys.stdout.write(text)


def run_export(args: argparse.Namespace) -> int:
    _doc, record = read_record_file(args.record)
    _write(export_pbn(record), args.output)
    return 0


def run_import(args: argparse.Namespace) -> int:
    try:
        data = Path(args.pbn).read_bytes()
    except OSError as exc:
        raise FairplayError(f"cannot read {args.pbn}: {exc.strerror}") from None
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        text = data.decode("latin-1")  # PBN 1.0 files are ISO-8859-1
    doc, skipped = import_pbn(text)
    load_record(doc)  # what we write must be a valid record
    for note in skipped:
        print(f"skipped {note}", file=sys.stderr)
    print(f"imported {len(doc['hands'])} boards, skipped {len(skipped)}", file=sys.stderr)
    _write(json.dumps(doc, indent=1) + "\n", args.output)
    return 0
