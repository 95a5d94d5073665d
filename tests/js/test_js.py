"""The browser's verifier (api/static/js) under Node's built-in test runner.

``node --test tests/js/`` runs every ``*.test.mjs`` here: the shuffle against the golden
vectors, Ed25519 with the weak-key refusal, signed notes and checkpoints, the Merkle
proofs, drand's BLS signatures and the bundle checks. Without ``node`` on the PATH this skips, unless
``FAIRPLAY_TEST_NODE=required`` (CI), where it fails.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent.parent


def node() -> str:
    """The node executable, or skip (fail when FAIRPLAY_TEST_NODE=required)."""
    found = shutil.which("node")
    if found is None:
        if os.environ.get("FAIRPLAY_TEST_NODE") == "required":
            pytest.fail("node is not installed and FAIRPLAY_TEST_NODE=required")
        pytest.skip("node is not installed (the browser verifier's tests need Node 20)")
    return found


BLS_BUNDLE = ROOT / "api" / "static" / "vendor" / "bls.js"


def bls_bundle() -> bool:
    """Whether the BLS bundle is built (`make`: npm ci, then esbuild). Without it the
    browser leaves drand's signature to the command; FAIRPLAY_TEST_NODE=required (CI)
    fails instead, as it does without node."""
    if BLS_BUNDLE.is_file():
        return True
    if os.environ.get("FAIRPLAY_TEST_NODE") == "required":
        pytest.fail(f"{BLS_BUNDLE} is not built (make) and FAIRPLAY_TEST_NODE=required")
    return False


def test_node_test_suite() -> None:
    done = subprocess.run(
        [node(), "--test", "tests/js/"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, done.stdout[-20000:] + done.stderr[-5000:]
