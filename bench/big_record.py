"""One big record against a batch of small ones: peak memory and rate per core.

Generates one record of ``--hands`` hands with ``audit.record.generate`` (honest, 4-4-5, with
``dealt_order`` and claims) and the same number of hands as records of 40, then runs
``fairplay audit`` on each, one after the other, in child processes: the big record
alone, then the folder with ``--jobs 1``. Printed side by side: the big record's
peak resident memory over its file's size (issue 13 target: at most 3), and the
batch's rate per core over the big record's (target: at most 2), both from the
children's own resource usage (CPU seconds, so other load on the machine does not
count). ``--format`` is the report's format for both; several formats are measured one
after the other (default: json, then text; html too when asked, which takes about a
hundred CPU seconds for each of the two at 100,000 hands).

Run: ``.venv/bin/python bench/big_record.py [--hands 100000] [--format json text]``
(generating 100,000 hands takes a few minutes; ``--keep DIR`` reuses the files).
"""

from __future__ import annotations

import argparse
import json
import os
import random
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from audit.record.generate import random_record

PER_RECORD = 40


def run(args: list[str]) -> tuple[float, float, int]:
    """Wall seconds, CPU seconds and peak RSS (bytes) of a ``fairplay`` child."""
    started = time.perf_counter()
    proc = subprocess.Popen(
        [sys.executable, "-m", "audit.cli", *args],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - started
    code = os.waitstatus_to_exitcode(status)
    if code not in (0, 1):
        raise SystemExit(f"fairplay {' '.join(args)} exited {code}")
    return wall, usage.ru_utime + usage.ru_stime, usage.ru_maxrss * 1024


def prepare(folder: Path, hands: int) -> tuple[Path, Path]:
    big = folder / "big.json"
    batch = folder / "batch"
    rng = random.Random(2026)
    if not big.exists():
        print(f"generating one record of {hands} hands ...", flush=True)
        big.write_text(json.dumps(random_record(rng, hands)), encoding="utf-8")
    if not batch.exists():
        print(f"generating {hands // PER_RECORD} records of {PER_RECORD} hands ...", flush=True)
        batch.mkdir()
        for i in range(hands // PER_RECORD):
            text = json.dumps(random_record(rng, PER_RECORD))
            (batch / f"r{i:05d}.json").write_text(text, encoding="utf-8")
    return big, batch


def measure(folder: Path, big: Path, batch: Path, hands: int, fmt: str) -> None:
    """One format: the big record, then the batch, side by side."""
    whole = (hands // PER_RECORD) * PER_RECORD
    size = big.stat().st_size
    out = folder / "out"
    out.mkdir(exist_ok=True)
    opt = ["--format", fmt]
    b_wall, b_cpu, b_rss = run(["audit", str(big), *opt, "-o", str(out / "big.report")])
    s_wall, s_cpu, s_rss = run(["audit", str(batch), *opt, "-o", str(out / "batch"), "-j", "1"])
    big_rate = hands / b_cpu
    batch_rate = whole / s_cpu
    print(f"one record of {hands} hands, {size / 1e6:.0f} MB, report as {fmt}:")
    print(
        f"  big record:  {b_cpu:6.1f} CPU s ({b_wall:.1f} s wall), {big_rate:8,.0f} hands/s, "
        f"peak RSS {b_rss / 1e6:,.0f} MB"
    )
    print(
        f"  batch of {whole // PER_RECORD} records of {PER_RECORD}: {s_cpu:6.1f} CPU s "
        f"({s_wall:.1f} s wall), {batch_rate:8,.0f} hands/s, peak RSS {s_rss / 1e6:,.0f} MB"
    )
    mem, ratio = b_rss / size, batch_rate / big_rate
    print(f"  peak RSS / file size: {mem:.1f} (target <= 3: {'met' if mem <= 3 else 'NOT met'})")
    # the batch's peak is the interpreter's and the extension's plus one small record:
    # what the big record adds over it grows with the file, the rest does not
    print(f"  (peak RSS - the batch's peak) / file size: {(b_rss - s_rss) / size:.2f}")
    print(
        f"  batch rate / big-record rate, per core: {ratio:.2f} "
        f"(target <= 2: {'met' if ratio <= 2 else 'NOT met'})",
        flush=True,
    )


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--hands", type=int, default=100_000)
    ap.add_argument(
        "--format", nargs="+", choices=("text", "json", "html"), default=["json", "text"]
    )
    ap.add_argument("--keep", help="folder for the generated records (reused when present)")
    args = ap.parse_args()
    folder = Path(args.keep or tempfile.mkdtemp(prefix="fairplay-big-"))
    folder.mkdir(parents=True, exist_ok=True)
    generated = not (folder / "big.json").exists() or not (folder / "batch").exists()
    big, batch = prepare(folder, args.hands)
    if generated:
        # A child's peak RSS starts from its parent's at the fork, and this process now
        # holds the generated records: measure from a fresh process instead.
        argv = [sys.executable, __file__, "--hands", str(args.hands), "--format", *args.format]
        os.execv(sys.executable, [*argv, "--keep", str(folder)])
    for fmt in args.format:
        measure(folder, big, batch, args.hands, fmt)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
