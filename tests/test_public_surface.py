"""The declared public surface: ``py.typed`` shipped, ``__all__`` names what exists."""

from __future__ import annotations

import importlib
import tomllib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

PUBLIC = (
    "audit.log.merkle",
    "audit.log.note",
    "audit.log.checkpoint",
    "audit.log.keys",
    "audit.log.bundle",
    "audit.log.verify",
    "shuffle",
    "shuffle.protocol",
    "shuffle.verify",
    "audit.auditor",
    "audit.record.codec",
)


@pytest.mark.parametrize("package", ["audit", "shuffle", "api"])
def test_each_package_is_typed_and_ships_the_marker(package: str) -> None:
    assert (ROOT / package / "py.typed").is_file()
    data = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    assert "py.typed" in data["tool"]["setuptools"]["package-data"][package]


@pytest.mark.parametrize("name", PUBLIC)
def test_all_names_only_what_the_module_defines(name: str) -> None:
    module = importlib.import_module(name)
    exported = module.__all__
    assert exported and len(set(exported)) == len(exported)
    missing = [n for n in exported if not hasattr(module, n)]
    assert missing == []
    private = [n for n in exported if n.startswith("_")]
    assert private == []


def test_merkle_docstring_names_the_stable_verifier_api() -> None:
    from audit.log import merkle

    doc = merkle.__doc__ or ""
    assert {"verify_inclusion", "verify_consistency", "leaf_hash", "node_hash"} <= set(
        merkle.__all__
    )
    assert [n for n in merkle.__all__ if n not in doc] == []


def test_package_data_lists_no_missing_file() -> None:
    data = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    for package, patterns in data["tool"]["setuptools"]["package-data"].items():
        for pattern in patterns:
            assert list((ROOT / package).glob(pattern)), f"{package}: {pattern} matches nothing"
