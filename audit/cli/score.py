"""fairplay score: the rubber score sheet of a record, or of every record in a folder.

Each hand is replayed and scored by the rules from the record's start (the claims
written in the record are not used: fairplay audit judges them). A hand that cannot
be scored (a deal that is not four hands of 13 different cards, such as a player with
14 cards; a trick that is not four cards) stops the command with exit status 2 and
the reason: the sheet would be wrong, and fairplay audit reports such a hand.

One record: the sheet on standard output, or in --output FILE (its folder must exist).
Several records or a folder: one sheet per record in --output DIR (default
score-sheets, created if missing), at the record's path relative to the folder given
(records/club/rubber.json gives DIR/club/rubber.score.txt), and a line per record on
standard output.

--format json gives, per hand, the dealer, contract (and whether it is the cayenne
suit), unit, tricks and the score after it (marker, games, bonuses), with the rubbers.

Exit status: 0 scored, 2 a record could not be read or scored, or a usage error.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from audit.cli.output import (
    check_output_file,
    expand,
    make_output_dir,
    report_path,
    write_text,
)
from audit.errors import FairplayError
from audit.record.codec import read_record_file
from audit.report.sheet import render_sheet
from audit.rules.model import Record
from audit.rules.sitting import ScoredRecord, score_record

__all__ = [
    "EXTENSIONS",
    "NotScorableError",
    "register",
    "render",
    "run",
    "scorable",
    "score_json",
]

EXTENSIONS = {"text": "txt", "json": "json"}


class NotScorableError(FairplayError):
    """A record with a hand the rules cannot score (its deal or its tricks are not whole)."""

    code = "NOT_SCORABLE"


def register(subparsers: Any) -> None:
    p: argparse.ArgumentParser = subparsers.add_parser(
        "score",
        help="print a record's score sheet in the book's layout",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument(
        "records", nargs="+", metavar="RECORD", help="cayenne-record/1 files or folders of them"
    )
    p.add_argument(
        "--format",
        choices=tuple(EXTENSIONS),
        default="text",
        help="text: the sheet in the book's layout (default); json: per hand and per rubber",
    )
    p.add_argument(
        "--output",
        "-o",
        metavar="PATH",
        help="one record: the file to write (its folder must exist); several records or a "
        "folder: the folder for the sheets (default score-sheets)",
    )
    p.set_defaults(func=run)


def scorable(record: Record, scored: ScoredRecord) -> None:
    """Raise :class:`NotScorableError` naming the first hand the rules cannot score."""
    for hand, outcome in zip(record.hands, scored.outcomes, strict=True):
        if getattr(hand, "void", None) is not None:
            continue
        for irr in outcome.irregularities:
            if irr.code in ("DEAL_INVALID", "HAND_NOT_REPLAYABLE"):
                raise NotScorableError(
                    f"hand {hand.number}: {irr.message}; the hand cannot be scored "
                    "(fairplay audit reports it)",
                    details={"hand": hand.number, "reason": irr.code},
                )


def score_json(record: Record, scored: ScoredRecord) -> dict[str, Any]:
    """The scores of a record hand by hand, and its rubbers."""
    hands: list[dict[str, Any]] = []
    for hand, outcome, score in zip(record.hands, scored.outcomes, scored.scores, strict=True):
        h: dict[str, Any] = {"hand": hand.number, "dealer": hand.dealer.name}
        void = getattr(hand, "void", None)
        if void is not None:
            h["void"] = void.to_json()
            hands.append(h)
            continue
        contract = outcome.contract
        h |= {
            "contract": None if contract is None else contract.text,
            "cayenne": contract is not None and contract < 4 and outcome.unit == 4,
            "unit": None if contract is None else outcome.unit,
            "tricks": {"NS": outcome.tricks[0], "EW": outcome.tricks[1]},
            "score": None if score is None else score.score.to_json(),
        }
        hands.append(h)
    out: dict[str, Any] = {}
    if record.players is not None:
        out["players"] = dict(record.players)
    out["hands"] = hands
    out["rubbers"] = scored.sheet.rubbers_json()
    return out


def render(path: Path, fmt: str) -> str:
    """The sheet of the record at ``path`` (raising :class:`FairplayError` when it cannot be)."""
    _doc, record = read_record_file(path)
    scored = score_record(record)
    scorable(record, scored)
    if fmt == "json":
        return json.dumps(score_json(record, scored), indent=1) + "\n"
    return render_sheet(record, scored)


def run(args: argparse.Namespace) -> int:
    if len(args.records) == 1 and not Path(args.records[0]).is_dir():
        target = check_output_file(args.output) if args.output else None
        text = render(Path(args.records[0]), args.format)
        if target is None:
            sys.stdout.write(text)
        else:
            write_text(target, text)
        return 0
    outdir = make_output_dir(args.output or "score-sheets")
    suffix = ".score." + EXTENSIONS[args.format]
    taken: set[Path] = set()
    status = 0
    total = 0
    for file, rel in expand(args.records):
        total += 1
        target = report_path(outdir, rel, suffix, taken)
        try:
            write_text(target, render(file, args.format))
        except FairplayError as exc:
            status = 2
            print(f"invalid   {file}  {exc.message}")
        else:
            print(f"scored    {file}  {target}")
    if total == 0:
        raise FairplayError(f"no .json records found in {' '.join(args.records)}")
    return status
