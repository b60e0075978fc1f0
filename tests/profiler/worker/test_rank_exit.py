"""A distributed arm's processes end without the interpreter's teardown, as a single worker
does (`lifeline.quick_exit`): with torch loaded a rank's teardown took ~4 s and its launcher's
~1.6 s, which the engine waited on after every torchrun launch (docs/benchmarks.md, "Suite
time")."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap

import pytest

from tcprof.profiler.worker import __main__ as entry
from tcprof.profiler.worker import distributed, lifeline


def test_a_rank_ends_through_quick_exit_with_its_code(monkeypatch):
    monkeypatch.setattr(distributed, "is_rank", lambda: True)
    monkeypatch.setattr(entry, "rank_main", lambda: 3)
    ended: list[int] = []

    def exit_here(code: int) -> None:
        ended.append(code)
        raise SystemExit(code)

    monkeypatch.setattr(lifeline, "quick_exit", exit_here)
    with pytest.raises(SystemExit):
        entry.main()
    assert ended == [3]


@pytest.mark.timeout(120)
def test_the_launcher_ends_without_the_interpreters_teardown(tmp_path):
    """torchrun with one rank that exits at once: the launcher's atexit hooks (a sign of the
    interpreter's teardown; one registered by a sitecustomize in every process) never run in
    the launcher, and its exit code is torchrun's."""
    (tmp_path / "sitecustomize.py").write_text(
        textwrap.dedent(
            f"""\
            import atexit, os
            atexit.register(
                lambda: open(os.path.join({str(tmp_path)!r}, f"torn-down-{{os.getpid()}}"), "w")
            )
            """
        )
    )
    env = {"PYTHONPATH": os.pathsep.join([str(tmp_path), *sys.path]), "PATH": "/usr/bin:/bin"}
    launcher = subprocess.Popen(
        [sys.executable, "-m", "tcprof.profiler.worker.distributed"]
        + ["--standalone", "--nnodes", "1", "--nproc-per-node", "1", "--no-python"]
        + [sys.executable, "-c", "pass"],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    output, _ = launcher.communicate(timeout=100)
    assert launcher.returncode == 0, output[-3000:]
    torn_down = {int(p.name.removeprefix("torn-down-")) for p in tmp_path.glob("torn-down-*")}
    assert torn_down, "the rank (a plain python -c) tears down: sitecustomize was loaded"
    assert launcher.pid not in torn_down, "the launcher tore its interpreter down"
