"""``fairplay analyse PATH...``: every card judged double dummy, and each pair tested for
play that knows too much (docs/analysis.md).

Reads records, an over-the-table event's records (files, or folders walked for
``*.json``) or an online event's certificate bundle. Exit status: 0 when no pair is
flagged, 1 when one is, 2 when an input cannot be read (the message names the file and
field).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from collections import deque
from collections.abc import Callable, Iterable, Iterator, Sequence
from concurrent.futures import Future, ProcessPoolExecutor
from pathlib import Path
from typing import Any, TypeVar

from audit.analysis.judge import FROM_CARD
from audit.cli.audit import _alpha
from audit.cli.output import read_documents, write_text
from audit.errors import FairplayError

__all__ = ["register", "run"]

T = TypeVar("T")
R = TypeVar("R")


def _count(name: str, low: int, high: int) -> Callable[[str], int]:
    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{name} {text!r} is not a whole number") from None
        if not low <= value <= high:
            raise argparse.ArgumentTypeError(f"{name} {text} must be from {low} to {high}")
        return value

    return parse


def register(subparsers: Any) -> None:
    p: argparse.ArgumentParser = subparsers.add_parser(
        "analyse",
        help="judge every card double dummy; test pairs for play that knows too much",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("paths", nargs="+", metavar="PATH", help="records, folders or a bundle")
    p.add_argument(
        "--format", choices=("text", "json", "html"), default="text", help="the report's form"
    )
    p.add_argument("--output", "-o", help="write here instead of standard output")
    p.add_argument(
        "--alpha",
        type=_alpha,
        default=0.001,
        help="family-wise level over the event's pairs (Holm; default 0.001)",
    )
    p.add_argument(
        "--from-card",
        type=_count("--from-card", 1, 51),
        default=FROM_CARD,
        metavar="K",
        help=f"judge and test the cards after the K-th (default {FROM_CARD}: from the fourth trick on)",
    )
    p.add_argument(
        "--leads",
        action="store_true",
        help="also judge opening leads (a whole-deal search each: a tenth of a second to seconds,"
        " and one to a few minutes in a nullo)",
    )
    p.add_argument(
        "--samples",
        type=_count("--samples", 0, 1000),
        default=15,
        metavar="N",
        help="deals drawn from each player's view per decision (default 15; 0: no test)",
    )
    p.add_argument(
        "--seen-draws",
        type=_count("--seen-draws", 0, 1000),
        default=0,
        metavar="N",
        help=(
            "also test each pair for playing what a player who saw an opponent's hand would:"
            " N deals per opponent per decision (default 0: off; about four times the CPU"
            " at 15; docs/analysis.md)"
        ),
    )
    p.add_argument(
        "--jobs",
        "-j",
        type=_count("--jobs", 0, 1024),
        default=0,
        metavar="N",
        help="worker processes (default: all cores)",
    )
    p.set_defaults(func=run)


class _Progress:
    """``done/total hands`` on stderr: one line rewritten on a terminal, else a line at
    every tenth."""

    def __init__(self, total: int) -> None:
        self.total = total
        self.done = 0
        self.started = time.perf_counter()
        self.tty = sys.stderr.isatty()
        self.step = max(1, total // 10)

    def tick(self) -> None:
        self.done += 1
        if not self.tty and self.done % self.step and self.done != self.total:
            return
        rate = self.done / max(time.perf_counter() - self.started, 1e-9)
        left = (self.total - self.done) / rate if rate else 0.0
        line = f"{self.done}/{self.total} hands judged ({rate:.1f}/s, ~{left:.0f}s left)"
        sys.stderr.write(f"\r\033[K{line}" if self.tty else line + "\n")
        if self.tty and self.done == self.total:
            sys.stderr.write("\n")
        sys.stderr.flush()


def _mapper(
    jobs: int, progress: _Progress
) -> Callable[[Callable[[T], R], Sequence[T]], Iterable[R]]:
    def run_all(fn: Callable[[T], R], items: Sequence[T]) -> Iterator[R]:
        if jobs <= 1 or len(items) < 2:
            for item in items:
                out = fn(item)
                progress.tick()
                yield out
            return
        window: deque[Future[R]] = deque()
        with ProcessPoolExecutor(max_workers=jobs) as pool:
            for item in items:
                window.append(pool.submit(fn, item))
                if len(window) >= 4 * jobs:
                    yield window.popleft().result()
                    progress.tick()
            while window:
                yield window.popleft().result()
                progress.tick()

    return run_all


def run(args: argparse.Namespace) -> int:
    from audit.analysis.inputs import hands_of
    from audit.analysis.judge import Settings
    from audit.analysis.render import render_html, render_text
    from audit.analysis.report import analyse

    hands, skipped = hands_of(read_documents(args.paths))
    if not hands:
        raise FairplayError("no hand played out to judge in " + " ".join(args.paths))
    settings = Settings(
        from_card=args.from_card,
        leads=args.leads,
        samples=args.samples,
        seen_draws=args.seen_draws,
    )
    jobs = args.jobs or os.cpu_count() or 1
    progress = _Progress(len(hands))
    doc = analyse(
        hands, settings, alpha=args.alpha, skipped=skipped, mapper=_mapper(jobs, progress)
    )
    if args.format == "json":
        text = json.dumps(doc, indent=1, ensure_ascii=False) + "\n"
    elif args.format == "html":
        text = render_html(doc)
    else:
        text = render_text(doc)
    if args.output:
        write_text(Path(args.output), text)
    else:
        sys.stdout.write(text)
    return 1 if doc["flagged"] else 0
