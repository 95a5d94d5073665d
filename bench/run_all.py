"""Run every benchmark in this folder, one after the other (``make bench``)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
BENCHES = [
    "engine_bench.py",
    "audit_bench.py",
    "shuffle_bench.py",
    "detection.py",
    "detection_calibration.py",
    "detection_bound.py",
    "detection_bound_order.py",
    "record_decision.py",
    "big_record.py",
    "log_bench.py",
    "api_bench.py",
    "hosts_bench.py",
    "tournament_bench.py",
    "certificate_js_bench.py",
    "dd_bench.py",
    "analysis_bench.py",
    "analysis_calibration.py",
]


def main() -> int:
    status = 0
    for name in BENCHES:
        path = HERE / name
        if not path.exists():
            continue
        print(f"\n=== {name} ===", flush=True)
        status |= subprocess.call([sys.executable, str(path)])
    return status


if __name__ == "__main__":
    sys.exit(main())
