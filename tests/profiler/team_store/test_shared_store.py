"""Two users, one store: a run logged with `--store` by one is seen by the other, whose own
sessions folder is empty, in `tcprof history`, `tcprof compare`, `tcprof report` and
`tcprof.load`; its session is downloaded into the reader's cache once."""

from __future__ import annotations

import json

import pytest

import tcprof
from tcprof.profiler.folders.files import SESSION_JSON
from tcprof.profiler.folders.home import sessions_dir
from tcprof.profiler.team_store.address import cache_dir
from tcprof.profiler.team_store.reading import MARKER, StoreReader
from tests.profiler.team_store.conftest import SIMPLE, as_user
from tests.profiler.team_store.conftest import tcprof as cli

pytestmark = [pytest.mark.tracker, pytest.mark.timeout(240)]


def test_a_teammate_with_an_empty_folder_reads_the_store(store, fake_runs, tmp_path, monkeypatch):
    as_user(tmp_path / "alice", monkeypatch)
    code, _out, err = cli("run", *SIMPLE, "--store", store)
    assert code == 0, err
    (folder,) = list(sessions_dir().iterdir())
    session = json.loads((folder / SESSION_JSON).read_text())
    assert "logged to MLflow: run " in err and "warning" not in err

    as_user(tmp_path / "bob", monkeypatch)  # nothing of his own
    assert not sessions_dir().exists() or not any(sessions_dir().iterdir())
    reader = StoreReader(store)
    (run,) = reader.runs()
    assert run.session == folder.name
    assert run.series == session["series"]["key"]
    assert run.version == session["provenance"]["tcprof"]

    code, out, err = cli("history", "--store", store)
    assert code == 0, err
    assert session["series"]["text"] in out
    html = tmp_path / "history.html"
    code, out, err = cli("history", "simple.py", "--store", store, "--html", str(html))
    assert code == 0, err
    assert f"page: {html}" in out and html.is_file()

    name = f"store:{folder.name}"
    loaded = tcprof.load(name, store=store)
    assert [a.name for a in loaded.arms] == ["eager", "aot_eager"]
    assert loaded.path is not None and loaded.path.parent == cache_dir(store)

    monkeypatch.setenv("TCPROF_STORE", store)  # the same, named by the environment
    code, out, err = cli("compare", name, f"mlflow:{run.run_id}")
    assert code == 0, err
    assert "aot_eager" in out
    code, out, err = cli("report", name, "--format", "md", "--out", str(tmp_path / "rep"))
    assert code == 0, err
    assert (tmp_path / "rep" / "report.md").is_file()

    cached = loaded.path / MARKER
    stamp = cached.stat().st_mtime_ns
    assert reader.fetch(run) == (loaded.path, False), "a cached session is not downloaded again"
    assert cli("history", "--store", store)[0] == 0
    assert cached.stat().st_mtime_ns == stamp


def test_a_store_name_with_no_store_or_not_in_it_is_one_line(store, tmp_path, monkeypatch):
    code, _out, err = cli("compare", "store:nowhere", "store:else")
    assert code == 2
    assert err.strip() == (
        "tcprof: error: store:nowhere names a session in the team store: give --store URI or "
        "set TCPROF_STORE"
    )
    code, _out, err = cli("compare", "store:nowhere", "store:else", "--store", store)
    assert code == 2
    assert err.strip() == f"tcprof: error: store:nowhere: no session named nowhere in {store}"
    with pytest.raises(ValueError, match="names a session in the team store"):
        tcprof.load("mlflow:0123")
