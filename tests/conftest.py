"""Suite-wide set-up: headless Qt, a private TCPROF_HOME, and no worker process left behind."""

from __future__ import annotations

import os

import psutil
import pytest

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
# Inductor compiles in its worker's own process: on a 2-core machine its pool of compile
# sub-processes (each importing torch again) costs more than it saves, and the tests check what
# a compile does, not how fast. Users' runs keep torch's default.
os.environ.setdefault("TORCHINDUCTOR_COMPILE_THREADS", "1")


@pytest.fixture(autouse=True)
def private_home(tmp_path_factory, monkeypatch):
    home = tmp_path_factory.mktemp("tcprof_home")
    monkeypatch.setenv("TCPROF_HOME", str(home))
    return home


@pytest.fixture(autouse=True)
def no_leaked_workers():
    """Fail a test that leaves a worker process (or its compile sub-processes) running."""
    me = psutil.Process()
    yield
    leaked = []
    for child in me.children(recursive=True):
        try:
            if "tcprof.profiler.worker" in " ".join(child.cmdline()):
                leaked.append(child)
        except psutil.Error:
            continue
    for child in leaked:
        child.kill()
    assert not leaked, f"worker processes left running: {[c.pid for c in leaked]}"
