"""The declared public surface: ``py.typed`` shipped, ``__all__`` names what exists.

Every module of audit/, shuffle/ and api/ whose name does not start with ``_`` (package
``__init__`` modules included) declares ``__all__``, and every name in it exists; no
module is left out.
"""

from __future__ import annotations

import ast
import importlib
import importlib.util
import tomllib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

PUBLIC = (
    "audit.log.merkle",
    "audit.log.canonical",
    "audit.log.note",
    "audit.log.checkpoint",
    "audit.log.keys",
    "audit.log.bundle",
    "audit.log.verify",
    "audit.log.store",
    "shuffle",
    "shuffle.protocol",
    "shuffle.verify",
    "audit.auditor",
    "audit.record.codec",
)


PACKAGES = ("audit", "shuffle", "api")


def _module_name(path: Path) -> str:
    parts = path.relative_to(ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def public_modules() -> list[str]:
    """Every module of the packages whose own name is public (no ``_`` prefix)."""
    names = []
    for package in PACKAGES:
        for path in sorted((ROOT / package).rglob("*.py")):
            if path.name != "__init__.py" and path.name.startswith("_"):
                continue
            if any(p.startswith((".", "_")) and p != "__init__.py" for p in path.parts):
                continue
            names.append(_module_name(path))
    return names


def declared_all(path: Path) -> list[str] | None:
    """The module's top-level ``__all__`` as written (a list or tuple of strings), or None."""
    for node in ast.parse(path.read_text(encoding="utf-8")).body:
        targets = (
            node.targets
            if isinstance(node, ast.Assign)
            else [node.target]
            if isinstance(node, ast.AnnAssign) and node.value is not None
            else []
        )
        if any(isinstance(t, ast.Name) and t.id == "__all__" for t in targets):
            value = ast.literal_eval(node.value)  # type: ignore[arg-type]
            assert isinstance(value, list | tuple), f"{path}: __all__ is not a literal list"
            return list(value)
    return None


def _path(name: str) -> Path:
    base = ROOT.joinpath(*name.split("."))
    return base / "__init__.py" if base.is_dir() else base.with_suffix(".py")


def all_problems(path: Path, module: object) -> list[str]:
    """What is wrong with the ``__all__`` of ``module`` (read from ``path``): [] if nothing."""
    exported = declared_all(path)
    if exported is None:
        return ["no __all__"]
    problems = [f"{n} listed twice" for n in sorted(set(exported)) if exported.count(n) > 1]
    problems += [f"{n} does not exist" for n in exported if not hasattr(module, n)]
    problems += [f"{n} is private" for n in exported if n.startswith("_")]
    return problems


CHECKED = public_modules()


@pytest.mark.parametrize("name", CHECKED)
def test_every_public_module_declares_all_and_each_name_exists(name: str) -> None:
    assert all_problems(_path(name), importlib.import_module(name)) == []


@pytest.mark.parametrize(
    ("source", "expected"),
    [
        ('"""No __all__."""\n\nX = 1\n', ["no __all__"]),
        ('__all__ = ["X", "gone", "X"]\nX = 1\n', ["X listed twice", "gone does not exist"]),
        ('__all__ = ["_x"]\n_x = 1\n', ["_x is private"]),
        ('__all__ = ["X"]\nX = 1\n', []),
    ],
)
def test_the_check_catches_a_missing_all_or_name(
    tmp_path: Path, source: str, expected: list[str]
) -> None:
    path = tmp_path / "synthetic.py"
    path.write_text(source, encoding="utf-8")
    spec = importlib.util.spec_from_file_location("synthetic", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    assert all_problems(path, module) == expected


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
