"""``fairplay score RECORD.json``: the rubber score sheet of a record."""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from audit.record.codec import read_record_file
from audit.report.sheet import render_sheet
from audit.rules.sitting import score_record


def register(subparsers: Any) -> None:
    p: argparse.ArgumentParser = subparsers.add_parser(
        "score",
        help="print a record's score sheet in the book's layout",
        description="Replay and score every hand of a cayenne-record/1 file from its start.",
    )
    p.add_argument("record", help="a cayenne-record/1 JSON file")
    p.add_argument("--format", choices=("text", "json"), default="text")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    _doc, record = read_record_file(args.record)
    scored = score_record(record)
    if args.format == "json":
        out: dict[str, Any] = {"rubbers": scored.sheet.rubbers_json()}
        json.dump(out, sys.stdout, indent=1)
        sys.stdout.write("\n")
    else:
        sys.stdout.write(render_sheet(record, scored))
    return 0
