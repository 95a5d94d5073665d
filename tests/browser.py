"""Headless Chromium (Debian's package) for tests that check pages in a real browser."""

from __future__ import annotations

import shutil
import subprocess
import tempfile
from pathlib import Path

import pytest

FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-dev-shm-usage",
    "--hide-scrollbars",
]


def chromium() -> str:
    for name in ("chromium", "chromium-browser", "google-chrome"):
        path = shutil.which(name)
        if path:
            return path
    pytest.skip(
        "headless Chromium is not installed (Debian package 'chromium'; .ci/run installs it)"
    )


def run(url: str, *extra: str) -> subprocess.CompletedProcess[str]:
    with tempfile.TemporaryDirectory() as profile:
        return subprocess.run(
            [chromium(), *FLAGS, f"--user-data-dir={profile}", *extra, url],
            capture_output=True,
            text=True,
            timeout=120,
        )


def dump_dom(url: str) -> str:
    """The DOM as the browser built it (after layout and scripts)."""
    proc = run(url, "--virtual-time-budget=3000", "--dump-dom")
    assert proc.returncode == 0, proc.stderr[-2000:]
    return proc.stdout


def screenshot(url: str, out: Path, size: str = "1200,2400") -> bytes:
    proc = run(url, f"--screenshot={out}", f"--window-size={size}")
    assert proc.returncode == 0 and out.exists(), proc.stderr[-2000:]
    return out.read_bytes()
