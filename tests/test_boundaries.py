"""The architecture's three boundaries, checked in fresh interpreters."""

from __future__ import annotations

import subprocess
import sys

ENGINE_CORE = [
    "profiler.cli",
    "profiler.runner",
    "profiler.session",
    "profiler.outputs",
    "profiler.summary",
    "profiler.inspection",
]


def _modules_after(imports: list[str]) -> set[str]:
    code = ";".join(f"import {m}" for m in imports) + ";import sys;print('\\n'.join(sys.modules))"
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=60
    ).stdout
    return set(out.split())


def test_engine_core_imports_neither_torch_nor_qt():
    mods = _modules_after(ENGINE_CORE)
    assert "torch" not in mods
    assert not any(m.startswith(("PySide6", "pyqtgraph")) for m in mods)


def test_no_profiler_module_imports_qt():
    import pathlib

    root = pathlib.Path(__file__).resolve().parent.parent / "profiler"
    for path in root.rglob("*.py"):
        text = path.read_text()
        assert "PySide6" not in text and "pyqtgraph" not in text, path


def test_only_the_worker_package_imports_torch():
    import pathlib
    import re

    root = pathlib.Path(__file__).resolve().parent.parent / "profiler"
    pattern = re.compile(r"^\s*(import torch|from torch)", re.M)
    offenders = [
        p for p in root.rglob("*.py") if pattern.search(p.read_text()) and "worker" not in p.parts
    ]
    assert offenders == []
