"""A store that cannot be reached: one line of warning, the session saved locally with nothing
lost, the exit code a run without a store would have, and `tcprof log-to` sends it later."""

from __future__ import annotations

import time

import pytest

import tcprof
from tcprof.profiler.api.progress import TcprofWarning
from tcprof.profiler.folders.home import sessions_dir
from tcprof.profiler.team_store.reading import StoreReader
from tests.profiler.team_store.conftest import SIMPLE
from tests.profiler.team_store.conftest import tcprof as cli
from tests.support.mlflow_server import free_port

pytestmark = [pytest.mark.tracker, pytest.mark.timeout(240)]


def test_a_run_whose_store_is_down_is_saved_and_sent_later(store, fake_runs, monkeypatch):
    down = f"http://127.0.0.1:{free_port()}"  # nothing listens there
    monkeypatch.setenv("TCPROF_STORE", down)
    started = time.monotonic()
    code, out, err = cli("run", *SIMPLE)
    assert time.monotonic() - started < 60
    assert code == 0, err  # as without a store
    (folder,) = list(sessions_dir().iterdir())
    assert {"session.json", "steps.csv", "report.html"} <= {p.name for p in folder.iterdir()}
    lines = [ln for ln in err.splitlines() if ln.startswith("tcprof: warning")]
    assert lines == [
        f"tcprof: warning: could not log to the store {down} (ConnectionError: cannot reach the "
        f"MLflow server at {down} (Connection refused)); the session is saved in {folder}: "
        f"tcprof log-to mlflow:{down} {folder} sends it later"
    ]
    assert "aot_eager" in out  # the summary, as ever

    code, _out, err = cli("log-to", f"mlflow:{store}", str(folder))  # the store is back
    assert code == 0, err
    (run,) = StoreReader(store).runs()
    assert run.session == folder.name


def test_the_api_warns_once_and_history_shows_the_local_sessions(fake_runs, monkeypatch):
    down = f"http://127.0.0.1:{free_port()}"
    with pytest.warns(TcprofWarning, match="could not log to the store") as caught:
        session = tcprof.run(
            example="simple",
            arms="eager,aot_eager",
            batch_sizes=8,
            warmup=1,
            steps=6,
            blocks=2,
            replicates=1,
            min_block_ms=0,
            no_accuracy=True,
            quiet=True,
            progress=False,
            store=down,
        )
    assert len([w for w in caught if issubclass(w.category, TcprofWarning)]) == 1
    assert session.path is not None and (session.path / "session.json").is_file()
    code, out, err = cli("history", "--store", down)
    assert code == 0
    assert err.strip() == (
        f"tcprof: warning: cannot reach the MLflow server at {down} (Connection refused)"
    )
    assert "simple" in out  # the local series, listed all the same
