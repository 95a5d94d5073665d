"""The native contract is mechanical: the C code's scalars come from Python, its bounds are
checked, and the stub types every function the extension exports."""

from __future__ import annotations

import ast
import re
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from audit import native
from audit.rules.deal import PATTERNS
from audit.stacking.detector import CLOSE_SPAN, EVIDENCE_P, THOROUGH_RIFFLES
from audit.stacking.order import SOFT_MIN_SCALE

CSRC = Path(native.__file__).with_name("csrc")
STUB = Path(native.__file__).with_name("_fastaudit.pyi")

BOUNDS = {"NCARDS", "MAX_PATTERNS", "MAX_CLAIMED"}
"""The only numeric #defines the C code may keep: array bounds (see fastaudit.h)."""


def numeric_defines() -> set[str]:
    found: set[str] = set()
    for path in sorted(CSRC.glob("*.[ch]")):
        for m in re.finditer(r"^#define\s+(\w+)\s+[-+(]*\d", path.read_text(), re.M):
            found.add(m.group(1))
    return found


def test_the_c_code_keeps_no_copy_of_a_python_scalar() -> None:
    assert numeric_defines() == BOUNDS
    for name in ("EVIDENCE_P", "CLOSE_SPAN", "THOROUGH_RIFFLES", "SOFT_MIN_SCALE"):
        for path in CSRC.glob("*.[ch]"):
            assert name not in re.sub(r"/\*.*?\*/", "", path.read_text(), flags=re.S), path


def test_configure_hands_over_the_detectors_scalars() -> None:
    assert native.scalars() == (EVIDENCE_P, CLOSE_SPAN, THOROUGH_RIFFLES, SOFT_MIN_SCALE)


def test_a_stale_bound_is_refused() -> None:
    with pytest.raises(native.NativeContractError, match="NCARDS is 51"):
        native.check_bounds(SimpleNamespace(NCARDS=51, MAX_PATTERNS=8))  # type: ignore[arg-type]
    with pytest.raises(native.NativeContractError, match="MAX_PATTERNS"):
        native.check_bounds(SimpleNamespace(NCARDS=52, MAX_PATTERNS=len(PATTERNS) - 1))  # type: ignore[arg-type]


def stub_names() -> tuple[set[str], set[str]]:
    tree = ast.parse(STUB.read_text(encoding="utf-8"))
    functions = {n.name for n in tree.body if isinstance(n, ast.FunctionDef)}
    values = {
        n.target.id
        for n in tree.body
        if isinstance(n, ast.AnnAssign) and isinstance(n.target, ast.Name)
    }
    return functions, values


def test_the_stub_types_every_export() -> None:
    ext: Any = pytest.importorskip("audit.native._fastaudit")
    public = {n for n in dir(ext) if not n.startswith("_")}
    functions, values = stub_names()
    assert {n for n in public if callable(getattr(ext, n))} == functions
    assert {n for n in public if not callable(getattr(ext, n))} == values
    native.check_bounds(ext)


def test_the_stub_ships_with_the_package() -> None:
    import tomllib

    root = Path(__file__).resolve().parents[2]
    data = tomllib.loads((root / "pyproject.toml").read_text(encoding="utf-8"))
    assert "native/_fastaudit.pyi" in data["tool"]["setuptools"]["package-data"]["audit"]
