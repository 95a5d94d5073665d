"""``fairplay tournament score PATH...``: the standings of an event played over the table.

Reads the records of one event (files, or folders walked for ``*.json``), audits them
as one and prints the standings (docs/tournaments.md). Exit status: 0 when no finding
is an error, 1 when one is (the standings are still printed), 2 when a record cannot
be read or the records are not one event (the message names the record and field).
"""

from __future__ import annotations

import argparse
import gc
import json
import sys
from pathlib import Path
from typing import Any

from audit.cli.audit import _alpha
from audit.cli.output import read_documents
from audit.errors import FairplayError

__all__ = ["register", "run_score"]


def register(subparsers: Any) -> None:
    p: argparse.ArgumentParser = subparsers.add_parser(
        "tournament",
        help="score an event played over the table",
        description="Tournaments: score an event from its tables' records.",
    )
    sub = p.add_subparsers(dest="tournament_command", metavar="SUBCOMMAND")
    s: argparse.ArgumentParser = sub.add_parser(
        "score",
        help="standings, travelling score sheets and the event-wide audit",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    s.add_argument("paths", nargs="+", metavar="PATH", help="record files or folders")
    s.add_argument(
        "--format",
        choices=("text", "json", "html"),
        default="text",
        help="text for a terminal (default), json, or html (a self-contained page)",
    )
    s.add_argument("--output", "-o", help="write here instead of standard output")
    s.add_argument("--alpha", type=_alpha, default=0.001, help="stacking significance level")
    s.set_defaults(func=run_score)
    v: argparse.ArgumentParser = sub.add_parser(
        "verify",
        help="check a tournament certificate bundle offline",
        description=(
            "Check a cayenne-tournament-certificate bundle with the log key alone: every "
            "signature, every inclusion, every deal, hand, board, matchpoint and standing "
            "recomputed. Exit 0 when all agree, 1 at the first difference (named), 2 when "
            "the bundle cannot be read."
        ),
    )
    v.add_argument("bundle", metavar="BUNDLE", help="the bundle file (JSON)")
    v.add_argument("--key", required=True, help="the log's verifier key (text or file)")
    v.add_argument("--witness", action="append", default=[], help="a witness verifier key")
    v.add_argument("--witness-quorum", type=int, default=None, help="witnesses needed (K)")
    v.add_argument(
        "--jobs",
        "-j",
        type=_jobs,
        default=None,
        help="processes checking the events' signatures (default: every core); the "
        "first difference named is the same for any number",
    )
    v.set_defaults(func=run_verify)
    from audit.cli import receipt

    receipt.register(sub)  # fairplay tournament receipt (cayenne-tournament-deals/2)


def _jobs(text: str) -> int:
    try:
        jobs = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"--jobs {text!r} is not a whole number") from None
    if jobs < 1:
        raise argparse.ArgumentTypeError(f"--jobs {text} must be 1 or more")
    return jobs


def run_score(args: argparse.Namespace) -> int:
    from audit.tournament.render import render_html, render_text
    from audit.tournament.score import score_event

    doc = score_event(
        read_documents(args.paths), alpha=args.alpha
    )  # a RecordError names the record
    if args.format == "json":
        text = json.dumps(doc, indent=1, ensure_ascii=False) + "\n"
    elif args.format == "html":
        text = render_html(doc)
    else:
        text = render_text(doc)
    if args.output:
        Path(args.output).write_text(text, encoding="utf-8")
    else:
        sys.stdout.write(text)
    return 1 if doc["verdict"] == "irregular" else 0


def run_verify(args: argparse.Namespace) -> int:
    # The collector's passes over the bundle's tree (some two million objects for a
    # 100-table event) find nothing to free and cost about 7% of the command's CPU: it is
    # paused while the bundle is read and verified, as the streamed audit pauses it.
    collecting = gc.isenabled()
    gc.disable()
    try:
        return _run_verify(args)
    finally:
        if collecting:
            gc.enable()


def _run_verify(args: argparse.Namespace) -> int:
    from audit.log.cosignature import WitnessPolicy, load_witness_key
    from audit.log.events import loads
    from audit.log.keys import load_verifier
    from audit.log.sigbatch import default_jobs
    from audit.tournament.certificate import CertificateUnreadable, verify_bundle

    try:
        bundle = loads(Path(args.bundle).read_bytes())
    except (OSError, ValueError, UnicodeDecodeError) as exc:
        print(f"fairplay: {args.bundle}: unreadable: {exc}", file=sys.stderr)
        return 2
    except FairplayError as exc:  # not UTF-8, nested too deep, an integer too long: $
        print(f"fairplay: {args.bundle}: unreadable: {exc.message}", file=sys.stderr)
        return 2
    try:
        key = load_verifier(args.key)
        policy = None
        if args.witness:
            witnesses = [load_witness_key(w) for w in args.witness]
            quorum = args.witness_quorum if args.witness_quorum is not None else len(witnesses)
            policy = WitnessPolicy(tuple(witnesses), quorum)
    except FairplayError as exc:
        print(f"fairplay: {exc}", file=sys.stderr)
        return 2
    try:
        jobs = args.jobs if args.jobs is not None else default_jobs()
        summary = verify_bundle(bundle, key, policy=policy, jobs=jobs)
    except CertificateUnreadable as exc:
        print(f"fairplay: {args.bundle}: unreadable: {exc}", file=sys.stderr)
        return 2
    except FairplayError as exc:
        print(f"fairplay: {args.bundle}: FAILED: [{exc.code}] {exc}", file=sys.stderr)
        return 1
    print(
        f"tournament {summary['tournament']}: certificate verified: {summary['events']} events, "
        f"{summary['hands']} hands, {summary['standings']} standings, checkpoint size "
        f"{summary['checkpoint_size']}; {summary['deals']}"
        + (
            f", witnessed by {', '.join(summary['witnessed_by'])}"
            if summary["witnessed_by"]
            else ""
        )
    )
    for r in summary["rulings"]:  # who took each ruling, and why
        reason = f": {r['reason']}" if "reason" in r else ""
        print(f"  ruling at log entry {r['index']}: {r['type']} by {r['by']}{reason}")
    return 0
