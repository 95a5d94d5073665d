"""The layers hold: every import in audit/, shuffle/ and api/ goes down, and none in a circle.

Every module is parsed (``ast``) and every import counted, at the top, inside functions
and under ``if TYPE_CHECKING:``. Each module belongs to a layer (the longest prefix in
:data:`RANK` or :data:`SIDE`); a layer may import only what :func:`allowed` lets it, and
the modules' import graph has no cycle. The chain, bottom to top::

    audit.errors <- audit.rules <- audit.record <- audit.stacking <- audit.checks
        <- audit.report <- audit.native <- audit.auditor <- audit.tournament <- api
        <- audit.cli

``audit.analysis`` (the double-dummy solver) stands beside ``audit.auditor``: it uses the
rules and its C search under ``audit.native``.
Beside it: ``audit.log`` (imports only ``audit.errors``; a package of its own) and
``shuffle`` (imports only ``audit.rules`` and ``audit.errors``); both are used by the
checks and above. Nothing imports ``api`` but ``audit.cli`` (bench/ and tests/ are not
scanned).
"""

from __future__ import annotations

import ast
import sys
from collections.abc import Mapping
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("audit", "shuffle", "api")

RANK: dict[str, int] = {
    "audit": 0,  # the package's __init__: a docstring and __version__, imports nothing
    "audit.errors": 0,
    "audit.rules": 1,
    "audit.record": 2,
    "audit.stacking": 3,  # the detector; the stacking check (audit.checks) calls it
    "audit.checks": 4,
    "audit.report": 5,
    "audit.native": 6,
    "audit.auditor": 7,
    "audit.analysis": 7,  # the double-dummy solver: the rules and its C search (audit.native)
    "audit.tournament": 8,
    "api": 9,
    "audit.cli": 10,
}
"""The chain: a layer imports only layers of a lower rank (and the side layers it may)."""

SIDE: dict[str, frozenset[str]] = {
    "audit.log": frozenset({"audit.errors"}),
    "shuffle": frozenset({"audit.errors", "audit.rules"}),
}
"""Layers beside the chain, with everything each may import."""

SIDE_USERS_FROM = RANK["audit.checks"]
"""The lowest rank that may import a side layer (the record and the rules do not)."""

CYCLE_EXCEPTIONS: dict[tuple[str, str], str] = {
    # None left: no circle is allowed, one closed by a type-only import (under
    # TYPE_CHECKING) or an import inside a function included. A new one names its way out.
}
"""Module imports left out of the cycle check, each with the reason."""

THIRD_PARTY: dict[str, frozenset[str]] = {
    # psycopg: the PostgreSQL backend, imported only when a postgresql:// URL is opened.
    "audit.log": frozenset({"cryptography", "fastjsonschema", "psycopg"}),
    # drand_verify: the BLS check of a drand round (shuffle.beacon, imported when one is
    # verified: cayenne-tournament-deals/2).
    "shuffle": frozenset({"fastjsonschema", "drand_verify"}),
}
"""Beyond the standard library, what a side layer may import."""


def module_name(path: Path) -> str:
    parts = path.relative_to(ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def source_files() -> dict[str, Path]:
    out: dict[str, Path] = {}
    for package in PACKAGES:
        for path in sorted((ROOT / package).rglob("*.py")):
            out[module_name(path)] = path
    return out


def imported_names(
    tree: ast.AST, module: str, is_package: bool, modules: frozenset[str] = frozenset()
) -> set[str]:
    """Every absolute module name imported anywhere in ``tree``. ``from X import y`` is an
    import of ``X.y`` when that is one of ``modules``, else of ``X`` (importing a
    submodule runs its package's ``__init__`` too, but that is not counted, as
    import-linter does not count it)."""
    package = module if is_package else module.rpartition(".")[0]
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                parts = package.split(".")
                base = parts[: len(parts) - (node.level - 1)]
                target = ".".join(base + ([node.module] if node.module else []))
            else:
                target = node.module or ""
            for alias in node.names:
                sub = f"{target}.{alias.name}"
                names.add(sub if sub in modules else target)
    return names


def import_graph() -> tuple[dict[str, set[str]], dict[str, set[str]]]:
    """(module -> project modules it imports, module -> top-level other packages)."""
    files = source_files()
    graph: dict[str, set[str]] = {}
    external: dict[str, set[str]] = {}
    for module, path in files.items():
        tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
        names = imported_names(tree, module, path.name == "__init__.py", frozenset(files))
        graph[module] = {n for n in names if n in files and n != module}
        external[module] = {n.split(".")[0] for n in names if n and n.split(".")[0] not in PACKAGES}
    return graph, external


def layer_of(module: str) -> str | None:
    layers = [*RANK, *SIDE]
    found = [
        lay for lay in layers if module == lay or (lay != "audit" and module.startswith(lay + "."))
    ]
    return max(found, key=len) if found else None


def allowed(importer: str, imported: str) -> bool:
    """Whether layer ``importer`` may import layer ``imported``."""
    if importer == imported:
        return True
    if importer in SIDE:
        return imported in SIDE[importer]
    rank = RANK[importer]
    if imported in SIDE:
        return rank >= SIDE_USERS_FROM
    return RANK[imported] < rank


def cycles(graph: Mapping[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one node (Tarjan), sorted."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    counter = 0

    def visit(v: str) -> None:
        nonlocal counter
        index[v] = low[v] = counter
        counter += 1
        stack.append(v)
        on_stack.add(v)
        for w in sorted(graph.get(v, ())):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1 or v in graph.get(v, ()):
                found.append(sorted(component))

    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(max(limit, 10_000))
    try:
        for v in sorted(graph):
            if v not in index:
                visit(v)
    finally:
        sys.setrecursionlimit(limit)
    return sorted(found)


def violations(graph: Mapping[str, set[str]]) -> list[str]:
    """Every forbidden import and every cycle (of modules, or of layers), as text."""
    out: list[str] = []
    layer_graph: dict[str, set[str]] = {}
    for module, targets in sorted(graph.items()):
        here = layer_of(module)
        if here is None:
            out.append(f"{module}: in no layer (add it to RANK or SIDE)")
            continue
        for target in sorted(targets):
            there = layer_of(target)
            if there is None or there == here:
                continue
            layer_graph.setdefault(here, set()).add(there)
            if not allowed(here, there):
                out.append(f"{module} imports {target}: {here} may not import {there}")
    acyclic = {m: {t for t in ts if (m, t) not in CYCLE_EXCEPTIONS} for m, ts in graph.items()}
    out += [f"import cycle: {' <-> '.join(c)}" for c in cycles(acyclic)]
    out += [f"layer cycle: {' <-> '.join(c)}" for c in cycles(layer_graph)]
    return out


GRAPH, EXTERNAL = import_graph()


def test_every_import_goes_down_and_none_in_a_circle() -> None:
    assert violations(GRAPH) == []


def test_every_exception_is_still_an_import() -> None:
    stale = [edge for edge in CYCLE_EXCEPTIONS if edge[1] not in GRAPH.get(edge[0], set())]
    assert stale == []


def test_nothing_imports_api_but_the_command_line() -> None:
    users = {
        m
        for m, ts in GRAPH.items()
        if layer_of(m) != "api" and any(layer_of(t) == "api" for t in ts)
    }
    assert users and {layer_of(m) for m in users} == {"audit.cli"}


def test_side_layers_need_only_their_listed_libraries() -> None:
    stdlib = set(sys.stdlib_module_names) | {"__future__"}
    for side, libraries in THIRD_PARTY.items():
        used = {
            lib
            for module, libs in EXTERNAL.items()
            if layer_of(module) == side
            for lib in libs
            if lib not in stdlib
        }
        assert used <= libraries, (side, used - libraries)


def test_the_scan_sees_imports_inside_functions_and_type_checking() -> None:
    # audit.checks.shuffle imports the shuffle package inside check(); audit.log.bundle
    # imports the store under TYPE_CHECKING.
    assert "shuffle.verify" in GRAPH["audit.checks.shuffle"]
    assert "audit.log.store" in GRAPH["audit.log.bundle"]
    tree = ast.parse(
        "from typing import TYPE_CHECKING\n"
        "if TYPE_CHECKING:\n    from audit.report import text\n"
        "def f():\n    from . import cards\n    import api.rows\n"
    )
    names = imported_names(tree, "audit.rules.deal", is_package=False, modules=frozenset(GRAPH))
    assert {"audit.report.text", "audit.rules.cards", "api.rows"} <= names


def test_a_forbidden_import_fails() -> None:
    graph = {m: set(ts) for m, ts in GRAPH.items()}
    graph["audit.rules.cards"].add("audit.report.text")
    graph["audit.log.merkle"].add("audit.rules.cards")
    graph["audit.auditor"].add("api.rows")
    found = violations(graph)
    assert (
        "audit.rules.cards imports audit.report.text: audit.rules may not import audit.report"
        in found
    )
    assert (
        "audit.log.merkle imports audit.rules.cards: audit.log may not import audit.rules" in found
    )
    assert "audit.auditor imports api.rows: audit.auditor may not import api" in found


def test_a_cycle_fails_even_between_allowed_layers() -> None:
    graph = {m: set(ts) for m, ts in GRAPH.items()}
    graph["audit.log.keys"].add("audit.log.note")
    graph["audit.log.note"].add("audit.log.keys")
    found = violations(graph)
    assert [v for v in found if v.startswith("import cycle")] == [
        "import cycle: audit.log.keys <-> audit.log.note"
    ]


def test_a_cycle_closed_by_a_type_only_import_fails() -> None:
    # audit.log.events imports audit.log.keys; keys naming the events' types, even only
    # for the type checker, closes a circle.
    assert "audit.log.keys" in GRAPH["audit.log.events"]
    tree = ast.parse(
        "from typing import TYPE_CHECKING\n"
        "if TYPE_CHECKING:\n    from audit.log.events import check_event\n"
    )
    graph = {m: set(ts) for m, ts in GRAPH.items()}
    graph["audit.log.keys"] |= imported_names(
        tree, "audit.log.keys", is_package=False, modules=frozenset(GRAPH)
    )
    assert "import cycle: audit.log.events <-> audit.log.keys" in violations(graph)


def test_a_module_outside_every_layer_fails() -> None:
    graph = {m: set(ts) for m, ts in GRAPH.items()}
    graph["audit.stray"] = set()
    assert "audit.stray: in no layer (add it to RANK or SIDE)" in violations(graph)
