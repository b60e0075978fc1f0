"""The house's plan: import-linter's contracts in pyproject.toml (layers, boundaries, no cycles,
with imports inside functions and under TYPE_CHECKING counted), shown to catch what they are
for, and what an import graph cannot see, checked in fresh interpreters.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

try:
    import tomllib
except ImportError:  # Python 3.10: import-linter brings tomli
    import tomli as tomllib

ROOT = Path(__file__).resolve().parents[1]
LINT = (
    "import sys; from importlinter.cli import lint_imports_command; "
    "sys.exit(lint_imports_command())"
)


def _lint(root: Path) -> subprocess.CompletedProcess:
    """lint-imports over the tree at `root` (its own pyproject.toml), in a fresh interpreter
    that finds `tcprof` there first."""
    return subprocess.run(
        [sys.executable, "-c", LINT, "--config", str(root / "pyproject.toml"), "--no-cache"],
        cwd=root,
        env={"PYTHONPATH": str(root), "PATH": "/usr/bin:/bin"},
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_the_contracts_are_kept():
    proc = _lint(ROOT)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "0 broken" in proc.stdout


def test_the_contracts_name_every_package():
    """A package missing from its floor's list would be checked by no layer contract."""
    contracts = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["importlinter"]
    for container, folder in (("tcprof.profiler", "profiler"), ("tcprof.app", "app")):
        (layers,) = [c for c in contracts["contracts"] if c.get("containers") == [container]]
        named = {n.strip() for layer in layers["layers"] for n in layer.split("|")}
        named |= set(layers.get("exhaustive_ignores", ()))
        on_disk = {p.parent.name for p in (ROOT / folder).glob("*/__init__.py")}
        on_disk |= {p.stem for p in (ROOT / folder).glob("*.py") if p.stem != "__init__"}
        assert on_disk == named, f"{container}: {on_disk ^ named}"


@pytest.fixture(scope="module")
def tree_copy(tmp_path_factory) -> Path:
    """The source tree, copied, to break on purpose."""
    root = tmp_path_factory.mktemp("house")
    for name in ("app", "profiler", "resources"):
        shutil.copytree(ROOT / name, root / name, ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copytree(ROOT / "tcprof", root / "tcprof", symlinks=True)
    shutil.copy(ROOT / "pyproject.toml", root / "pyproject.toml")
    return root


def _broken_by(root: Path, module: str, line: str, expected: str) -> None:
    path = root / (module + ".py")
    original = path.read_text()
    path.write_text(original + "\n" + line + "\n")
    try:
        proc = _lint(root)
    finally:
        path.write_text(original)
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert f"{expected} BROKEN" in proc.stdout, proc.stdout


def test_torch_outside_the_worker_breaks_a_contract(tree_copy):
    _broken_by(
        tree_copy,
        "profiler/analysis/stats",
        "def _late():\n    import torch  # inside a function: counted all the same",
        "Only the worker imports torch",
    )


def test_a_floor_importing_one_above_it_breaks_a_contract(tree_copy):
    _broken_by(
        tree_copy,
        "profiler/session/records",
        "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from tcprof.profiler.store import files",
        "The engine's floors: each imports only the floors below it",
    )


def test_a_cycle_between_two_modules_breaks_a_contract(tree_copy):
    _broken_by(
        tree_copy,
        "profiler/store/steps_csv",
        "def _late():\n    from tcprof.profiler.store import files",
        "No cycles: between packages, and between the modules of a package",
    )


def test_qt_in_the_engine_breaks_a_contract(tree_copy):
    _broken_by(tree_copy, "profiler/report/table", "import PySide6", "The engine never imports Qt")


ENGINE_CORE = [
    "tcprof.profiler.cli.main",
    "tcprof.profiler.run.runner",
    "tcprof.profiler.session.fold",
    "tcprof.profiler.store.outputs",
    "tcprof.profiler.report.table",
    "tcprof.profiler.process.inspection",
]


def test_importing_the_engine_loads_neither_torch_nor_qt():
    """What the import graph cannot see: a dependency that imports torch or Qt itself."""
    code = (
        ";".join(f"import {m}" for m in ENGINE_CORE) + ";import sys;print('\\n'.join(sys.modules))"
    )
    loaded = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=60
    ).stdout.split()
    assert "torch" not in loaded
    assert not [m for m in loaded if m.split(".")[0] in ("PySide6", "shiboken6", "pyqtgraph")]
