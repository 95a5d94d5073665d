"""`fairplay audit` as a user runs it: exit statuses, formats, batches, the HTML page."""

from __future__ import annotations

import json
import random
import re
import subprocess
import sys
from pathlib import Path

from audit.record.generate import random_record

from ..browser import dump_dom, screenshot
from .helpers import ROOT, WORKED_EXAMPLE, worked_example


def fairplay(*args: str, cwd: Path = ROOT) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "audit.cli", *args],
        capture_output=True,
        text=True,
        cwd=cwd,
        timeout=300,
    )


def test_clean_record_exits_0_with_a_text_report() -> None:
    proc = fairplay("audit", str(WORKED_EXAMPLE))
    assert proc.returncode == 0, proc.stderr
    assert "CLEAN" in proc.stdout and "2  0  0  0  3  4  4  8  4  = 25" in proc.stdout


def test_irregular_record_exits_1_and_json_follows_the_spec(tmp_path: Path) -> None:
    doc = worked_example()
    doc["hands"][1]["dealer"] = "W"
    path = tmp_path / "r.json"
    path.write_text(json.dumps(doc))
    proc = fairplay("audit", str(path), "--format", "json")
    assert proc.returncode == 1
    report = json.loads(proc.stdout)
    assert report["format"] == "cayenne-audit-report/1" and report["verdict"] == "irregular"
    f = report["findings"][0]
    assert set(f) >= {"code", "severity", "hand", "message", "evidence"}
    h = report["hands"][0]
    assert set(h) >= {"hand", "dealer", "contract", "unit", "tricks", "score"}
    assert set(report["rubbers"][0]) == {"winner", "games", "sheet", "totals", "value"}


def test_invalid_record_and_usage_errors_exit_2(tmp_path: Path) -> None:
    doc = worked_example()
    doc["hands"][2]["tricks"][4]["cards"][1] = "XS"
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(doc))
    proc = fairplay("audit", str(path))
    assert proc.returncode == 2 and "hands[2].tricks[4].cards[1]: 'XS' is not a card" in proc.stderr
    assert "Traceback" not in proc.stderr
    proc = fairplay("audit", str(WORKED_EXAMPLE), "--alpha", "7")
    assert proc.returncode == 2 and "--alpha" in proc.stderr


def test_output_file(tmp_path: Path) -> None:
    out = tmp_path / "report.json"
    proc = fairplay("audit", str(WORKED_EXAMPLE), "--format", "json", "--output", str(out))
    assert proc.returncode == 0 and proc.stdout == ""
    assert json.loads(out.read_text())["verdict"] == "clean"


def test_a_directory_of_records_is_audited_with_one_report_each_and_a_summary(
    tmp_path: Path,
) -> None:
    src = tmp_path / "records"
    src.mkdir()
    rng = random.Random(3)
    for i in range(6):
        (src / f"r{i}.json").write_text(json.dumps(random_record(rng, 8)))
    bad = worked_example()
    bad["hands"][0]["dealer"] = "E"
    (src / "irregular.json").write_text(json.dumps(bad))
    (src / "broken.json").write_text("{")
    out = tmp_path / "reports"
    proc = fairplay("audit", str(src), "--output", str(out), "--format", "json")
    assert proc.returncode == 2, proc.stdout + proc.stderr  # one record could not be audited
    lines = (out / "summary.jsonl").read_text().splitlines()
    summary = [json.loads(line) for line in lines]
    status = {Path(r["record"]).name: r["status"] for r in summary}
    assert status["broken.json"] == "invalid" and status["irregular.json"] == "irregular"
    assert sum(1 for s in status.values() if s == "clean") == 6
    assert (out / "r0.report.json").exists() and (out / "irregular.report.json").exists()
    assert "8 records: 6 clean, 1 irregular, 1 not valid" in proc.stdout


def test_html_report_is_self_contained_and_renders_in_chromium(tmp_path: Path) -> None:
    doc = worked_example()
    doc["hands"][0]["gathered"]["NS"].reverse()
    path = tmp_path / "r.json"
    path.write_text(json.dumps(doc))
    page = tmp_path / "report.html"
    proc = fairplay("audit", str(path), "--format", "html", "--output", str(page))
    assert proc.returncode == 1
    html = page.read_text()
    assert not re.search(r"""(src|href)\s*=\s*["']?(https?:)?//""", html), (
        "the page must fetch nothing"
    )
    dom = dump_dom(page.as_uri())
    assert dom.count('data-role="deal-diagram"') == 3
    assert 'data-role="score-sheet"' in dom and ">25</b>" in dom.replace("= ", "")
    assert 'href="#hand-1"' in dom and "TRICKS_OUT_OF_ORDER" in dom
    png = screenshot(page.as_uri(), tmp_path / "shot.png")
    assert png[:8] == b"\x89PNG\r\n\x1a\n" and len(png) > 20_000


def test_progress_is_shown_on_a_terminal_only(tmp_path: Path) -> None:
    import os
    import pty

    src = tmp_path / "records"
    src.mkdir()
    rng = random.Random(4)
    for i in range(3):
        (src / f"r{i}.json").write_text(json.dumps(random_record(rng, 4)))
    master, slave = pty.openpty()
    proc = subprocess.run(
        [sys.executable, "-m", "audit.cli", "audit", str(src), "-o", str(tmp_path / "out")],
        stdout=subprocess.PIPE,
        stderr=slave,
        cwd=ROOT,
        timeout=300,
        text=True,
    )
    os.close(slave)
    seen = b""
    while True:
        try:
            chunk = os.read(master, 4096)
        except OSError:
            break
        if not chunk:
            break
        seen += chunk
    os.close(master)
    assert proc.returncode == 0
    assert b"3 records audited" in seen
    quiet = fairplay("audit", str(src), "-o", str(tmp_path / "out2"))
    assert "records audited" not in quiet.stderr
