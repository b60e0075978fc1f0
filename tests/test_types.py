"""The types of both packages: `make lint`'s mypy command, run here so that `make test` runs it
too.

What it checks and how strictly is pyproject.toml's [tool.mypy]: one run over tcprof.profiler
(the worker and torch's typed API included) and tcprof.app (PySide6's own stubs; pyqtgraph has
none). It shares `make lint`'s .mypy_cache in the checkout: cold, from a fresh clone, it takes
about 24 s of CPU (3.5 s of it the window's; docs/benchmarks.md); warm, under a second.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

try:
    import tomllib
except ImportError:  # Python 3.10: import-linter brings tomli
    import tomli as tomllib

ROOT = Path(__file__).resolve().parents[1]
MYPY = [sys.executable, "-m", "mypy", "--config-file", "pyproject.toml"]  # as the Makefile's


def test_every_package_is_type_checked():
    """mypy's packages cover every installed package but the resources (data, not code): a new
    floor, or the window, cannot be left out of the one run."""
    pyproject = tomllib.loads((ROOT / "pyproject.toml").read_text())
    checked = pyproject["tool"]["mypy"]["packages"]
    installed = pyproject["tool"]["setuptools"]["packages"]
    code = [p for p in installed if p.count(".") >= 1 and not p.startswith("tcprof.resources")]
    left_out = [p for p in code if not any(p == c or p.startswith(c + ".") for c in checked)]
    assert not left_out, f"not type-checked: {left_out}"


# `slow`: handed out among the first files of make test's parallel pass (tests/conftest.py), so
# that its cold run (tens of seconds of one core) overlaps the other files rather than ending
# the pass alone.
@pytest.mark.slow
@pytest.mark.timeout(300)
def test_both_packages_type_check():
    proc = subprocess.run(MYPY, cwd=ROOT, capture_output=True, text=True, timeout=290)
    assert proc.returncode == 0, proc.stdout + proc.stderr
