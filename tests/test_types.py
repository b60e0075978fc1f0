"""The engine's types: `make lint`'s mypy command, run here so that `make test` runs it too.

What it checks and how strictly is pyproject.toml's [tool.mypy]: tcprof.profiler, the worker and
torch's typed API included. Cold (no .mypy_cache) it takes about 15-20 s; warm, under a second.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
MYPY = [sys.executable, "-m", "mypy", "--config-file", "pyproject.toml"]  # as the Makefile's


@pytest.mark.timeout(300)
def test_the_engine_type_checks():
    proc = subprocess.run(MYPY, cwd=ROOT, capture_output=True, text=True, timeout=290)
    assert proc.returncode == 0, proc.stdout + proc.stderr
