"""fairplay audit: audit one record, or many on all cores.

One record: the report on standard output (or --output FILE; FILE's folder must
exist). Several records or a folder: one report per record written into --output DIR
(default audit-reports, created if missing), each at the record's path relative to
the folder given (records/club/rubber.json gives DIR/club/rubber.report.txt), plus
summary.jsonl (a line per record, written as it goes), a line per record on standard
output and a progress line on a terminal. At most four records per worker are in
flight and workers return only a summary line, so memory stays bounded however many
records there are.

Exit status: 0 clean, 1 at least one finding of severity error, 2 a record could not
be audited (not valid, or holds no hand) or a usage error (such as --output naming a
folder for one record).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from collections import deque
from collections.abc import Iterator
from concurrent.futures import Future, ProcessPoolExecutor
from pathlib import Path
from typing import Any

from audit.auditor import DEFAULT_ALPHA, audit_document
from audit.cli.big_record import audit_streamed
from audit.cli.output import (
    check_output_file,
    expand,
    make_output_dir,
    report_path,
    write_text,
)
from audit.errors import FairplayError
from audit.record.codec import collector_paused, read_json_file

__all__ = ["EXTENSIONS", "register", "render", "run"]

EXTENSIONS = {"text": "txt", "json": "json", "html": "html"}


def _alpha(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"--alpha {text!r} is not a number") from None
    if not 0 < value < 1:
        raise argparse.ArgumentTypeError(f"--alpha {text} must be between 0 and 1")
    return value


def register(subparsers: Any) -> None:
    p: argparse.ArgumentParser = subparsers.add_parser(
        "audit",
        help="audit records: irregularities, stacked deals, score errors",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument(
        "records", nargs="+", metavar="RECORD", help="cayenne-record/1 files or directories"
    )
    p.add_argument(
        "--format",
        choices=tuple(EXTENSIONS),
        default="text",
        help="report format: text for a terminal (default), json (cayenne-audit-report/1), "
        "html (a self-contained page)",
    )
    p.add_argument(
        "--output",
        "-o",
        metavar="PATH",
        help="one record: the report file (its folder must exist); several records or a "
        "folder: the folder for the reports (default audit-reports)",
    )
    p.add_argument(
        "--alpha",
        type=_alpha,
        default=DEFAULT_ALPHA,
        help="significance level of the stacking test (default 0.001)",
    )
    p.add_argument(
        "--jobs",
        "-j",
        type=int,
        default=0,
        metavar="N",
        help="worker processes for several records (default: all cores)",
    )
    p.set_defaults(func=run)


def render(report: dict[str, Any], doc: Any, fmt: str, source: str) -> str:
    if fmt == "json":
        return json.dumps(report, indent=1) + "\n"
    if fmt == "html":
        from audit.report.html import render_html

        return render_html(report, doc, title=f"Audit of {Path(source).name}")
    from audit.report.text import render_text

    players = doc.get("players") if isinstance(doc, dict) else None
    return render_text(report, source, players=players if isinstance(players, dict) else None)


def run(args: argparse.Namespace) -> int:
    if len(args.records) == 1 and not Path(args.records[0]).is_dir():
        return _single(Path(args.records[0]), args)
    return _batch(expand(args.records), args)


def _single(path: Path, args: argparse.Namespace) -> int:
    target = check_output_file(args.output) if args.output else None
    verdict = audit_streamed(path, args.alpha, args.format, target)
    if verdict is not None:  # hand by hand (docs/performance.md, "One big record")
        return 1 if verdict == "irregular" else 0
    doc = read_json_file(path)
    # One record in a one-shot process: the collector would only rescan the parsed
    # record while the audit allocates (a 100,000-hand record: most of the time), and
    # neither the tree nor the report holds a cycle (docs/performance.md).
    with collector_paused():
        report = audit_document(doc, alpha=args.alpha)
        text = render(report, doc, args.format, str(path))
    if target is not None:
        write_text(target, text)
    else:
        sys.stdout.write(text)
    return 1 if report["verdict"] == "irregular" else 0


def _work(task: tuple[str, str, str, float]) -> dict[str, Any]:
    path, target_name, fmt, alpha = task
    started = time.perf_counter()
    try:
        doc = read_json_file(path)
        report = audit_document(doc, alpha=alpha)
    except FairplayError as exc:
        return {"record": path, "status": "invalid", "error": exc.message}
    except Exception as exc:  # noqa: BLE001 - one bad record must not stop a batch
        return {"record": path, "status": "invalid", "error": f"internal error: {exc!r}"}
    target = Path(target_name)
    try:
        write_text(target, render(report, doc, fmt, path))  # never a half-written report
    except FairplayError as exc:
        return {"record": path, "status": "invalid", "error": exc.message}
    codes: dict[str, int] = {}
    for f in report["findings"]:
        codes[f["code"]] = codes.get(f["code"], 0) + 1
    return {
        "record": path,
        "status": report["verdict"],
        "hands": len(report["hands"]),
        "findings": codes,
        "report": str(target),
        "seconds": round(time.perf_counter() - started, 4),
    }


def _progress(done: int, started: float) -> None:
    elapsed = max(time.perf_counter() - started, 1e-9)
    spinner = "|/-\\"[done % 4]
    sys.stderr.write(f"\r{spinner} {done} records audited ({done / elapsed:.1f}/s)")
    sys.stderr.flush()


def _results(tasks: Iterator[tuple[str, str, str, float]], jobs: int) -> Iterator[dict[str, Any]]:
    """Results in input order, with at most ``4 * jobs`` records in flight (bounded memory)."""
    if jobs <= 1:
        yield from map(_work, tasks)
        return
    window: deque[Future[dict[str, Any]]] = deque()
    with ProcessPoolExecutor(max_workers=jobs) as pool:
        for task in tasks:
            window.append(pool.submit(_work, task))
            if len(window) >= 4 * jobs:
                yield window.popleft().result()
        while window:
            yield window.popleft().result()


def _batch(files: Iterator[tuple[Path, Path]], args: argparse.Namespace) -> int:
    outdir = make_output_dir(args.output or "audit-reports")
    jobs = args.jobs or os.cpu_count() or 1
    suffix = ".report." + EXTENSIONS[args.format]
    taken: set[Path] = set()
    tasks = (
        (str(f), str(report_path(outdir, rel, suffix, taken)), args.format, args.alpha)
        for f, rel in files
    )
    show = sys.stderr.isatty()
    started = time.perf_counter()
    counts = {"clean": 0, "irregular": 0, "invalid": 0}
    status = 0
    total = 0
    with open(outdir / "summary.jsonl", "w", encoding="utf-8") as summary:
        for res in _results(tasks, jobs):
            total += 1
            counts[res["status"]] += 1
            summary.write(json.dumps(res) + "\n")
            if res["status"] == "invalid":
                status = 2
            elif res["status"] == "irregular" and status == 0:
                status = 1
            detail = res.get("error") or ", ".join(
                f"{k}x{v}" for k, v in sorted(res.get("findings", {}).items())
            )
            if show:
                sys.stderr.write("\r\033[K")
            print(f"{res['status']:<9} {res['record']}  {detail}", flush=show)
            if show:
                _progress(total, started)
    if show:
        sys.stderr.write("\n")
    if total == 0:
        raise FairplayError(f"no .json records found in {' '.join(args.records)}")
    print(
        f"{total} records: {counts['clean']} clean, {counts['irregular']} irregular, "
        f"{counts['invalid']} not valid; reports and summary.jsonl in {outdir}/ "
        f"({time.perf_counter() - started:.1f}s)"
    )
    return status
