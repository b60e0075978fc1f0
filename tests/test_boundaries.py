"""The architecture's boundaries and its one-way dependency arrows, read from the syntax tree.

Every import of every module in app/ and profiler/ is checked, including imports inside
functions and `importlib.import_module("...")` calls with a literal name: app/ never imports
torch or the worker package, profiler/ never imports the GUI or Qt, and only profiler/worker/
imports torch. bench/ and tests/ are exempt, and so are the example models in resources/, which
workers run like any user's model file. The project's modules import each other without cycles.
A fresh interpreter then confirms that importing the engine loads neither torch nor Qt.
"""

from __future__ import annotations

import ast
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("app", "profiler")


@dataclass(frozen=True)
class Rule:
    scope: str  # the modules the rule applies to: this package and everything under it
    forbidden: tuple[str, ...]  # modules they may not import (each with its submodules)
    why: str
    exempt: str | None = None  # a subpackage of the scope the rule does not apply to


RULES = (
    Rule("app", ("torch", "profiler.worker"), "the GUI process never imports torch or the worker"),
    Rule(
        "profiler",
        ("app", "PySide6", "shiboken6", "pyqtgraph"),
        "the engine never imports the GUI or Qt",
    ),
    Rule("profiler", ("torch",), "only profiler/worker/ imports torch", exempt="profiler.worker"),
)


@dataclass(frozen=True)
class Import:
    importer: str
    names: tuple[str, ...]  # what the statement may load: `from a import b` loads a, maybe a.b
    line: int
    at_import_time: bool  # runs when the importer is imported (not in a function, not typing-only)


def _within(name: str, package: str) -> bool:
    return name == package or name.startswith(package + ".")


def module_name(path: Path, root: Path = ROOT) -> str:
    parts = list(path.relative_to(root).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


class _ImportCollector(ast.NodeVisitor):
    def __init__(self, importer: str, is_package: bool) -> None:
        self.importer = importer
        self.package = importer if is_package else importer.rpartition(".")[0]
        self.found: list[Import] = []
        self._deferred = 0  # depth inside functions and `if TYPE_CHECKING:` blocks

    def _add(self, names: list[str], node: ast.AST) -> None:
        self.found.append(Import(self.importer, tuple(names), node.lineno, self._deferred == 0))

    def _defer(self, node: ast.AST) -> None:
        self._deferred += 1
        self.generic_visit(node)
        self._deferred -= 1

    visit_FunctionDef = visit_AsyncFunctionDef = visit_Lambda = _defer

    def visit_If(self, node: ast.If) -> None:
        test = node.test
        typing_only = (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
            isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
        )
        if not typing_only:
            self.generic_visit(node)
            return
        self._deferred += 1
        for child in node.body:
            self.visit(child)
        self._deferred -= 1
        for child in node.orelse:
            self.visit(child)

    def visit_Import(self, node: ast.Import) -> None:
        for alias in node.names:
            self._add([alias.name], node)

    def visit_ImportFrom(self, node: ast.ImportFrom) -> None:
        base = node.module or ""
        if node.level:
            anchor = self.package.split(".")
            anchor = anchor[: len(anchor) - (node.level - 1)]
            base = ".".join(filter(None, [*anchor, base]))
        self._add([base, *(f"{base}.{a.name}" for a in node.names if a.name != "*")], node)

    def visit_Call(self, node: ast.Call) -> None:
        func = node.func
        called = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", None)
        if called in ("import_module", "__import__") and node.args:
            first = node.args[0]
            if isinstance(first, ast.Constant) and isinstance(first.value, str):
                if not first.value.startswith("."):
                    self._add([first.value], node)
        self.generic_visit(node)


def imports_of(source: str, importer: str, is_package: bool = False) -> list[Import]:
    collector = _ImportCollector(importer, is_package)
    collector.visit(ast.parse(source))
    return collector.found


def project_modules() -> dict[str, Path]:
    found = {}
    for package in PACKAGES:
        for path in sorted((ROOT / package).rglob("*.py")):
            if "__pycache__" not in path.parts:
                found[module_name(path)] = path
    return found


def project_imports() -> list[Import]:
    found = []
    for name, path in project_modules().items():
        source = path.read_text(encoding="utf-8")
        found += imports_of(source, name, is_package=path.name == "__init__.py")
    return found


def boundary_violations(imports: list[Import]) -> list[str]:
    out = []
    for imp in imports:
        for rule in RULES:
            if not _within(imp.importer, rule.scope):
                continue
            if rule.exempt and _within(imp.importer, rule.exempt):
                continue
            bad = [n for n in imp.names if any(_within(n, f) for f in rule.forbidden)]
            if bad:
                out.append(f"{imp.importer}:{imp.line} imports {bad[0]} ({rule.why})")
    return out


def _parents(module: str) -> list[str]:
    parts = module.split(".")
    return [".".join(parts[:i]) for i in range(1, len(parts))]


def import_cycles(imports: list[Import], modules: set[str]) -> list[list[str]]:
    """Groups of modules that import one another at import time (strongly connected parts)."""
    graph: dict[str, set[str]] = {m: set() for m in modules}
    for imp in imports:
        if not imp.at_import_time:
            continue
        # `from a import b` loads the module a.b when there is one, else reads the name b in a.
        base, *members = imp.names
        targets = {n for n in members if n in modules}
        if not members or len(targets) < len(members):
            targets.add(base)
        # Importing a.b.c runs a/__init__.py and a/b/__init__.py first.
        targets |= {p for t in list(targets) for p in _parents(t)}
        graph[imp.importer].update(t for t in targets if t in modules and t != imp.importer)

    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    cycles: list[list[str]] = []

    def visit(node: str) -> None:  # Tarjan's algorithm
        index[node] = low[node] = len(index)
        stack.append(node)
        for nxt in sorted(graph[node]):
            if nxt not in index:
                visit(nxt)
                low[node] = min(low[node], low[nxt])
            elif nxt in stack:
                low[node] = min(low[node], index[nxt])
        if low[node] == index[node]:
            group = []
            while True:
                member = stack.pop()
                group.append(member)
                if member == node:
                    break
            if len(group) > 1:
                cycles.append(sorted(group))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return cycles


def test_the_collector_sees_every_form_of_import():
    source = (
        "import os\n"
        "from typing import TYPE_CHECKING\n"
        "from . import worker\n"
        "from ..app import main_window as mw\n"
        "if TYPE_CHECKING:\n"
        "    import torch.nn\n"
        "def later():\n"
        "    from PySide6.QtCore import QObject\n"
        "    importlib.import_module('pyqtgraph')\n"
        "class Holder:\n"
        "    import numpy\n"
    )
    found = {(imp.names, imp.at_import_time) for imp in imports_of(source, "profiler.thing")}
    assert found == {
        (("os",), True),
        (("typing", "typing.TYPE_CHECKING"), True),
        (("profiler", "profiler.worker"), True),
        (("app", "app.main_window"), True),
        (("torch.nn",), False),
        (("PySide6.QtCore", "PySide6.QtCore.QObject"), False),
        (("pyqtgraph",), False),
        (("numpy",), True),
    }
    assert len(boundary_violations(imports_of(source, "profiler.thing"))) == 4


def test_the_cycle_finder_reports_a_loop():
    modules = {"profiler.a", "profiler.b", "profiler.c"}
    imports = [
        Import("profiler.a", ("profiler", "profiler.b"), 1, True),
        Import("profiler.b", ("profiler.a",), 1, True),
        Import("profiler.c", ("profiler.a",), 1, False),
    ]
    assert import_cycles(imports, modules) == [["profiler.a", "profiler.b"]]


def test_every_import_respects_the_boundaries():
    imports = project_imports()
    assert len(imports) > 100  # the walk reached the code
    violations = boundary_violations(imports)
    assert not violations, "\n".join(violations)


def test_the_modules_import_one_another_without_cycles():
    modules = project_modules()
    cycles = import_cycles(project_imports(), set(modules))
    assert not cycles, "\n".join(" <-> ".join(group) for group in cycles)


ENGINE_CORE = [
    "profiler.cli",
    "profiler.runner",
    "profiler.session",
    "profiler.outputs",
    "profiler.summary",
    "profiler.inspection",
]


def test_importing_the_engine_loads_neither_torch_nor_qt():
    """What the syntax tree cannot see: a dependency that imports torch or Qt itself."""
    code = (
        ";".join(f"import {m}" for m in ENGINE_CORE) + ";import sys;print('\\n'.join(sys.modules))"
    )
    loaded = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=60
    ).stdout.split()
    assert "torch" not in loaded
    assert not [m for m in loaded if m.split(".")[0] in ("PySide6", "shiboken6", "pyqtgraph")]
