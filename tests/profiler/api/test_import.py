"""`import tcprof` in a fresh interpreter loads the API's names lazily: neither torch, nor Qt,
nor scipy (bench/api_import.py measures how long it takes; no test times it)."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

HEAVY = ("torch", "PySide6", "shiboken6", "pyqtgraph", "scipy", "numpy", "IPython", "cloudpickle")

PROBE = """
import json, sys
import tcprof
after_import = sorted(sys.modules)
names = {name: callable(getattr(tcprof, name)) for name in ("run", "load", "compare", "Session")}
print(json.dumps({"after_import": after_import, "after_names": sorted(sys.modules),
                  "names": names, "dir": dir(tcprof)}))
"""


@pytest.fixture(scope="module")
def probe():
    out = subprocess.run(
        [sys.executable, "-c", PROBE], capture_output=True, text=True, timeout=60, check=True
    )
    return json.loads(out.stdout)


def test_import_tcprof_loads_neither_torch_nor_qt_nor_scipy(probe):
    loaded = {m.split(".")[0] for m in probe["after_import"]}
    assert not loaded & set(HEAVY), sorted(loaded & set(HEAVY))
    assert "tcprof.profiler" not in probe["after_import"], "the engine is imported on first use"


def test_the_api_names_come_without_torch_or_qt(probe):
    assert probe["names"] == {"run": True, "load": True, "compare": True, "Session": True}
    assert {"run", "load", "compare", "Session", "Row", "Comparison"} <= set(probe["dir"])
    loaded = {m.split(".")[0] for m in probe["after_names"]}
    assert not loaded & {"torch", "PySide6", "shiboken6", "pyqtgraph", "scipy"}


def test_an_unknown_name_is_an_attribute_error():
    import tcprof

    with pytest.raises(AttributeError, match="module 'tcprof' has no attribute 'runn'"):
        tcprof.runn  # noqa: B018
