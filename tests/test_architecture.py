"""The house's plan: import-linter's contracts in pyproject.toml (layers, boundaries, no cycles,
with imports inside functions and under TYPE_CHECKING counted), shown to catch what they are
for, and what an import graph cannot see, checked in fresh interpreters.
"""

from __future__ import annotations

import json
import re
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
        "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from tcprof.profiler.folders import files",
        "The engine's floors: each imports only the floors below it",
    )


def test_a_cycle_between_two_modules_breaks_a_contract(tree_copy):
    _broken_by(
        tree_copy,
        "profiler/folders/steps_csv",
        "def _late():\n    from tcprof.profiler.folders import files",
        "No cycles: between packages, and between the modules of a package",
    )


def test_qt_in_the_engine_breaks_a_contract(tree_copy):
    _broken_by(
        tree_copy, "profiler/report/sections/table", "import PySide6", "The engine never imports Qt"
    )


def test_the_engine_lists_its_floors_as_the_contract_orders_them():
    """profiler/__init__.py's tour of the floors is the layer contract's list, top to bottom."""
    contracts = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["importlinter"]
    (layers,) = [c for c in contracts["contracts"] if c.get("containers") == ["tcprof.profiler"]]
    tour = (ROOT / "profiler" / "__init__.py").read_text()
    assert re.findall(r"^- `(\w+(?: \| \w+)*)`:", tour, flags=re.M) == layers["layers"]


ENGINE_CORE = [
    "tcprof.profiler.cli.main",
    "tcprof.profiler.cli.report_command",
    "tcprof.profiler.run.runner",
    "tcprof.profiler.session.fold",
    "tcprof.profiler.folders.outputs",
    "tcprof.profiler.report.sections.table",
    "tcprof.profiler.process.inspection",
]
PROBE = f"""
import json, sys
before = set(sys.modules)  # what the interpreter and its site hooks loaded
import tcprof.profiler.config
config = sorted(set(sys.modules) - before)
{";".join(f"import {m}" for m in ENGINE_CORE)}
from tcprof.profiler.report.html import render_html
from tcprof.profiler.report.markdown import render_markdown
from tcprof.profiler.report.reproduce import render_reproducer
from tests.support.synthetic import synthetic_session
data = synthetic_session()
from tcprof.profiler.model.session import SessionModel
model = SessionModel.from_json(data)
render_html(model); render_markdown(model); render_reproducer(model)
import pathlib
from tcprof.profiler.trackers import log_session
folder = pathlib.Path(sys.argv[1])
(folder / "session.json").write_text(json.dumps(data))
assert log_session(folder, [f"tensorboard:{{folder / 'tb'}}"]) == []
print(json.dumps({{"config": config, "engine": sorted(sys.modules)}}))
"""


def test_the_engine_loads_neither_torch_nor_qt(tmp_path):
    """What the import graph cannot see: a dependency that imports torch or Qt itself, at import,
    while the reports render or while a session is logged to TensorBoard. The run's config,
    which a worker imports, loads only the standard library."""
    loaded = json.loads(
        subprocess.run(
            [sys.executable, "-c", PROBE, str(tmp_path)],
            cwd=ROOT,
            capture_output=True,
            text=True,
            check=True,
            timeout=60,
        ).stdout
    )
    tops = {m.split(".")[0] for m in loaded["engine"]}
    assert "tensorboard" in tops  # the probe went as far as the trackers
    assert not tops & {"torch", "PySide6", "shiboken6", "pyqtgraph"}
    outside = {m.split(".")[0] for m in loaded["config"]} - set(sys.stdlib_module_names)
    assert outside == {"tcprof"}
