"""Suite-wide set-up: headless Qt, a private TCPROF_HOME, and no worker process left behind."""

from __future__ import annotations

import os
import signal

import psutil
import pytest

from tests.support.mlflow_server import mlflow_server  # noqa: F401  (one server per test pass)

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
# Inductor compiles in its worker's own process: on a 2-core machine its pool of compile
# sub-processes (each importing torch again) costs more than it saves, and the tests check what
# a compile does, not how fast. Users' runs keep torch's default.
os.environ.setdefault("TORCHINDUCTOR_COMPILE_THREADS", "1")
# Inductor's first CPU kernel in a fresh cache folder builds and loads a test library for each
# vector ISA the CPU claims (AVX-512, AVX2...): 10-15 s of g++ here, paid again by every cold,
# portable and per-rank compile, since each arm's cold compile gets a cache folder of its own.
# The suite trusts the CPU's flags instead (torch's own switch); a kernel the compiler cannot
# build still fails its test. Users' runs keep the probe (docs/benchmarks.md, "Suite time").
os.environ.setdefault("TORCHINDUCTOR_VEC_ISA_OK", "1")
# Timed arms forked too (profiler/process/forked.py): a forked worker's steps do not time as a
# fresh one's, but these tests check behaviour, and torch's import is most of a short run's
# CPU. The timing-sensitive pass (make test's second) forks too: its deadlines are a stall's
# or a Stop's, which a worker's start-up does not move. The engine's default (timed arms
# fresh) is checked by tests that set the variable themselves.
os.environ.setdefault("TCPROF_FORK_WORKERS", "all")
# A suite started in the background of a non-interactive shell inherits SIGINT ignored, and so
# would every `tcprof run` a test starts to press Ctrl+C on (an ignored signal stays ignored
# across exec): a handler here is reset to the default in each child, which then stops on it.
if signal.getsignal(signal.SIGINT) is signal.SIG_IGN:
    signal.signal(signal.SIGINT, signal.default_int_handler)


@pytest.fixture(autouse=True)
def private_home(tmp_path_factory, monkeypatch):
    home = tmp_path_factory.mktemp("tcprof_home")
    monkeypatch.setenv("TCPROF_HOME", str(home))
    return home


@pytest.fixture(autouse=True)
def no_leaked_workers():
    """Fail a test that leaves a worker process (or its compile sub-processes) running."""
    from tests.support.processes import worker_processes

    yield
    leaked = worker_processes()
    for child in leaked:
        try:
            child.kill()
        except psutil.Error:
            pass
    assert not leaked, f"worker processes left running: {[c.pid for c in leaked]}"


HEAVY_MARKS = ("install", "inductor", "slow", "tracker")


def pytest_ignore_collect(collection_path, config):
    """`make test`'s serial pass (`-m serial`) imports only the test files that mark a test
    serial: importing all the others (torch, Qt) took 12 s only to deselect their tests. A
    serial test is marked in its own file (`pytest.mark.serial`), never by a conftest."""
    if config.getoption("markexpr", "") != "serial" or collection_path.suffix != ".py":
        return None
    if not collection_path.name.startswith("test_"):
        return None
    return "mark.serial" not in collection_path.read_text(encoding="utf-8")


def pytest_collection_modifyitems(config, items):
    """The files with tests of tens of seconds first (stable otherwise): under
    `-n 3 --dist loadfile --no-loadscope-reorder` each file is one unit of work in this order,
    and a long file handed out last keeps one process busy while the other idles (the wheel's
    install test, the last file collected, took the suite's final 50 s on one core). Without
    `--no-loadscope-reorder` xdist hands files out by their number of tests, most first, and
    this order is lost (tests/test_suite_order.py)."""
    heavy = {item.path for item in items if any(item.get_closest_marker(m) for m in HEAVY_MARKS)}
    items.sort(key=lambda item: item.path not in heavy)
