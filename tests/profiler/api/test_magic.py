"""%load_ext tcprof registers %tcprof, which takes `tcprof run`'s arguments; a bad one is the
CLI's line on stderr and no run (the magic's real runs are in docs/notebook.ipynb's test)."""

from __future__ import annotations

import pytest

from tcprof.profiler.api.magic import USAGE, tcprof_magic
from tcprof.profiler.folders import home as paths

IPython = pytest.importorskip("IPython")


@pytest.fixture
def shell():
    from IPython.core.interactiveshell import InteractiveShell

    ip = InteractiveShell.instance()
    ip.run_line_magic("load_ext", "tcprof")
    yield ip
    InteractiveShell.clear_instance()


def test_load_ext_tcprof_adds_the_line_magic(shell, capsys):
    assert "tcprof" in shell.magics_manager.magics["line"]
    assert shell.run_line_magic("tcprof", "run --example simple --steps many") is None
    err = capsys.readouterr().err
    assert err == f"tcprof: error: argument --steps: invalid int value: 'many'\n{USAGE}\n"


def test_a_bad_value_is_the_clis_line_and_nothing_runs(capsys, private_home):
    assert tcprof_magic("--example simple --steps 0", {}) is None
    assert capsys.readouterr().err == "tcprof: error: --steps must be at least 1\n"
    namespace = {"Net": lambda: None}
    assert tcprof_magic("Net --model-name X", namespace) is None
    assert "unrecognized arguments: --model-name X" in capsys.readouterr().err
    assert tcprof_magic("Net --model Other", namespace) is None
    assert "a class or callable given as model= is the model itself" in capsys.readouterr().err
    root = paths.sessions_dir()
    assert not root.exists() or not any(root.iterdir()), "no folder was made"
