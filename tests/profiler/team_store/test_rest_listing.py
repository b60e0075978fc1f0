"""The store listed over MLflow's REST API (team_store/rest.py) against the real server: the
same sessions, in the same order, as MLflow's client lists; paged; and a `tcprof history
--store` whose sessions are all cached never imports MLflow (its import is seconds)."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from tcprof.profiler.team_store import rest
from tcprof.profiler.team_store.reading import StoreReader
from tcprof.profiler.trackers import log_session
from tests.profiler.team_store.conftest import tcprof as cli
from tests.support.history_series import write_series
from tests.support.mlflow_server import experiment

pytestmark = [pytest.mark.tracker, pytest.mark.timeout(300)]

SESSIONS = 3


@pytest.fixture(scope="module")
def logged(mlflow_server, tmp_path_factory) -> tuple[str, str]:
    """(the store, an experiment of this module's own) holding three synthetic sessions."""
    mlflow_server.wait_ready()
    name = experiment()
    folder = tmp_path_factory.mktemp("theirs")
    write_series(folder, [1.0] * SESSIONS)
    for session in sorted(folder.iterdir()):
        assert log_session(session, [f"mlflow:{mlflow_server.uri}"], mlflow_experiment=name) == []
    return mlflow_server.uri, name


def test_rest_lists_what_mlflows_client_lists(logged):
    uri, name = logged
    reader = StoreReader(uri, name)
    assert reader.rest is not None, "an http store is read over REST"
    listed = reader.runs()
    assert len(listed) == SESSIONS
    reader.rest = None  # MLflow's client instead, as for a sqlite: or databricks store
    assert reader.runs() == listed
    assert [r.session for r in listed] == [f"run-{i:04d}" for i in reversed(range(SESSIONS))]
    assert {r.commit for r in listed} == {f"c{i + 1:06d}" * 5 for i in range(SESSIONS)}

    by_id = StoreReader(uri, name).resolve(f"mlflow:{listed[1].run_id}")
    assert by_id.name == listed[1].session
    with pytest.raises(ValueError, match="no run 0123"):
        StoreReader(uri, name).resolve("mlflow:0123")


def test_a_page_smaller_than_the_store_is_paged(logged, monkeypatch):
    uri, name = logged
    asked: list[str] = []
    ask = rest.RestStore._ask

    def counted(self, path, body=None):
        asked.append(path)
        return ask(self, path, body)

    monkeypatch.setattr(rest.RestStore, "_ask", counted)
    reader = StoreReader(uri, name)
    whole = reader.runs()
    assert asked.count("/runs/search") == 1
    asked.clear()
    reader.rest = rest.RestStore(uri, page_size=1)
    assert reader.runs() == whole
    assert asked.count("/runs/search") >= SESSIONS  # one run a page (a last, empty one or not)


def test_a_cached_history_never_imports_mlflow(logged, tmp_path, monkeypatch):
    uri, name = logged
    monkeypatch.setenv("TCPROF_HOME", str(tmp_path / "bob"))
    monkeypatch.setenv("MLFLOW_EXPERIMENT_NAME", name)
    code, out, err = cli("history", "model.py", "--store", uri)  # the first read downloads
    assert code == 0 and f"({SESSIONS} sessions)" in out, err
    probe = (
        "import json, sys\n"
        "from tcprof.profiler.cli.main import main\n"
        f"code = main(['history', 'model.py', '--store', {uri!r}])\n"
        "print(json.dumps([code, sorted(m for m in sys.modules if m.split('.')[0] == 'mlflow')]))"
    )
    done = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, env=dict(os.environ)
    )
    assert done.returncode == 0, done.stderr
    code, imported = json.loads(done.stdout.strip().splitlines()[-1])
    assert code == 0, done.stdout + done.stderr
    assert "c000001" in done.stdout, "the cached sessions are read"
    assert imported == [], "every session is cached: nothing downloaded, MLflow not imported"
    assert "warning" not in done.stderr
