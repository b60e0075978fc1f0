"""A session logged to a real MLflow server (started here: SQLite store, local artifacts) and
read back with MLflow's client; a tracker that cannot be reached is one warning, nothing lost."""

from __future__ import annotations

import csv
import json
import subprocess
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from tcprof.profiler.analysis.verdict import speedup_interval, speedup_settled, verdict_lines
from tcprof.profiler.model.session import SessionModel
from tcprof.profiler.report.markdown import md_text
from tcprof.profiler.trackers import log_session
from tests.support.mlflow_server import free_port

pytestmark = [pytest.mark.tracker, pytest.mark.timeout(300)]
EXPERIMENT = "tcprof-tests"


def MlflowClient(tracking_uri: str):  # noqa: N802  (MLflow's class, as the tests call it)
    """MLflow's client, imported when a test first needs it: importing mlflow takes about 2.5 s,
    which every test process of `make test` would otherwise pay while collecting this file."""
    from mlflow.tracking import MlflowClient as Client

    return Client(tracking_uri=tracking_uri)


@pytest.fixture(scope="module")
def server(mlflow_server):
    """The pass's shared server, not yet waited for: it boots while the shared real run runs."""
    return mlflow_server


@pytest.fixture(scope="module")
def logged(server, saved_session):
    """The shared session logged once: (client, parent run, {arm name: nested run}, lines)."""
    server.wait_ready()
    lines: list[str] = []
    warnings = log_session(
        saved_session,
        [f"mlflow:{server.uri}"],
        mlflow_experiment=EXPERIMENT,
        on_logged=lines.append,
    )
    assert warnings == []
    client = MlflowClient(tracking_uri=server.uri)
    parent, children = _runs(client, EXPERIMENT, saved_session.name)
    return client, parent, children, lines


def _runs(client, experiment, session_name):
    experiment_id = client.get_experiment_by_name(experiment).experiment_id
    runs = client.search_runs([experiment_id])
    (parent,) = [
        r
        for r in runs
        if r.data.tags.get("tcprof.session") == session_name
        and "mlflow.parentRunId" not in r.data.tags
    ]
    children = {
        r.info.run_name: r
        for r in runs
        if r.data.tags.get("mlflow.parentRunId") == parent.info.run_id
    }
    return parent, children


def _session(folder: Path) -> dict:
    return json.loads((folder / "session.json").read_text())


def test_one_run_per_session_and_a_nested_run_per_arm(logged, saved_session, server):
    _client, parent, children, lines = logged
    session = _session(saved_session)
    assert parent.info.run_name == saved_session.name
    assert sorted(children) == sorted(a["name"] for a in session["arms"])
    for run in [parent, *children.values()]:
        assert run.info.status == "FINISHED"
        assert run.info.start_time == int(session["started_at"] * 1000)
        assert run.info.end_time == int(session["ended_at"] * 1000)
    run_id = parent.info.run_id
    assert lines == [
        f"logged to MLflow: run {run_id} in experiment '{EXPERIMENT}' at {server.uri} "
        f"({server.uri}/#/experiments/{parent.info.experiment_id}/runs/{run_id})"
    ]
    note = parent.data.tags["mlflow.note.content"]  # its description: verdict and table
    assert md_text(verdict_lines(SessionModel.read(session))[0]) in note
    assert "| arm | bs |" in note
    for arm in session["arms"]:
        arm_note = children[arm["name"]].data.tags["mlflow.note.content"]
        assert sum(line.startswith(f"| {arm['name']} |") for line in arm_note.splitlines()) == len(
            arm["results"]
        )


def test_the_configuration_as_params(logged, saved_session):
    _client, parent, children, _ = logged
    session = _session(saved_session)
    config = session["config"]
    for run in [parent, *children.values()]:
        params = run.data.params
        assert params["steps"] == str(config["steps"])
        assert params["batch_sizes"] == ",".join(str(b) for b in config["batch_sizes"])
        assert params["debug.explain"] == str(config["debug"]["explain"])
        assert params["environment.torch"] == session["environment"]["torch"]
    for arm in session["arms"]:
        params = children[arm["name"]].data.params
        assert params["arm.backend"] == arm["backend"]
        assert params["arm.dynamic"] == str(arm["options"]["dynamic"])
        assert params["arm.baseline"] == str(arm["name"] == session["baseline"])
    assert not any(k.startswith("arm.") for k in parent.data.params)


def test_per_step_series_are_steps_csv(logged, saved_session):
    client, _parent, children, _ = logged
    with open(saved_session / "steps.csv", newline="") as f:
        rows = list(csv.DictReader(f))
    for arm, run in children.items():
        for bs in {int(r["batch_size"]) for r in rows if r["arm"] == arm}:
            mine = [r for r in rows if r["arm"] == arm and int(r["batch_size"]) == bs]
            history = client.get_metric_history(run.info.run_id, f"step_ms/bs{bs}")
            got = sorted((m.step, m.value) for m in history)
            assert got == [(int(r["step"]), pytest.approx(float(r["ms"]))) for r in mine]
            rate = {
                m.step: m.value
                for m in client.get_metric_history(run.info.run_id, f"throughput/bs{bs}")
            }
            assert rate == {int(r["step"]): pytest.approx(bs * 1000 / float(r["ms"])) for r in mine}
            rss = {
                m.step: m.value
                for m in client.get_metric_history(run.info.run_id, f"rss_mb/bs{bs}")
            }
            assert rss == {
                int(r["step"]): pytest.approx(float(r["rss_mb"])) for r in mine if r["rss_mb"]
            }


def test_headline_figures_are_session_json(logged, saved_session):
    _client, _parent, children, _ = logged
    session = _session(saved_session)
    for arm in session["arms"]:
        metrics = children[arm["name"]].data.metrics
        for r in arm["results"]:
            bs = r["batch_size"]
            assert metrics[f"median_ms/bs{bs}"] == pytest.approx(r["median_ms"])
            # a headline and a per-step series never share a name (one would hide the other)
            assert metrics[f"samples_per_s/bs{bs}"] == pytest.approx(r["samples_per_s"])
            if arm["name"] == session["baseline"]:
                assert f"speedup/bs{bs}" not in metrics
                continue
            if speedup_settled(r):  # the one rule: an unsettled speedup is no headline
                assert metrics[f"speedup/bs{bs}"] == pytest.approx(r["speedup"])
            else:
                assert f"speedup/bs{bs}" not in metrics
            if speedup_interval(r):
                low, high = r["speedup_ci"]
                assert metrics[f"speedup_ci_low/bs{bs}"] == pytest.approx(low)
                assert metrics[f"speedup_ci_high/bs{bs}"] == pytest.approx(high)
            else:
                assert f"speedup_ci_low/bs{bs}" not in metrics, "one round: no interval"
            assert metrics[f"compile_s/bs{bs}"] == pytest.approx(r["compile_s"])


def test_session_json_and_the_reports_as_artifacts(logged, saved_session, tmp_path):
    client, parent, _children, _ = logged
    names = sorted(a.path for a in client.list_artifacts(parent.info.run_id))
    assert names == ["report.html", "report.md", "session.json", "steps.csv"]
    for name in names:
        got = client.download_artifacts(parent.info.run_id, name, str(tmp_path))
        assert Path(got).read_bytes() == (saved_session / name).read_bytes()


def test_reports_missing_from_the_folder_are_rendered_for_the_upload(
    server, session_copy, tmp_path, monkeypatch
):
    monkeypatch.delenv("MLFLOW_EXPERIMENT_NAME", raising=False)
    server.wait_ready()
    for name in ("report.html", "report.md"):
        (session_copy / name).unlink()
    assert log_session(session_copy, [f"mlflow:{server.uri}"]) == []
    client = MlflowClient(tracking_uri=server.uri)
    parent, _ = _runs(client, "tcprof", session_copy.name)  # the default experiment's name
    html = client.download_artifacts(parent.info.run_id, "report.html", str(tmp_path))
    assert "<html" in Path(html).read_text()
    md = client.download_artifacts(parent.info.run_id, "report.md", str(tmp_path))
    assert "| arm | bs |" in Path(md).read_text()
    assert not (session_copy / "report.html").exists()  # the session folder is left as it was


def _fail_fast(monkeypatch):
    monkeypatch.setenv("MLFLOW_HTTP_REQUEST_MAX_RETRIES", "0")
    monkeypatch.setenv("MLFLOW_HTTP_REQUEST_TIMEOUT", "3")


def test_a_tracker_nothing_answers_on_is_one_warning_and_nothing_is_lost(session_copy, monkeypatch):
    _fail_fast(monkeypatch)
    before = sorted((p.name, p.read_bytes()) for p in session_copy.iterdir())
    lines: list[str] = []
    uri = f"http://127.0.0.1:{free_port()}"  # nothing listens there
    started = time.monotonic()
    warnings = log_session(session_copy, [f"mlflow:{uri}", "tensorboard"], on_logged=lines.append)
    assert time.monotonic() - started < 60
    assert warnings == [
        f"could not log to mlflow:{uri}: ConnectionError: cannot reach the MLflow server at "
        f"{uri} (Connection refused)"
    ]
    assert len(lines) == 1 and lines[0].startswith("logged to TensorBoard")  # the next one logs
    after = sorted((p.name, p.read_bytes()) for p in session_copy.iterdir() if p.is_file())
    assert after == [item for item in before if (session_copy / item[0]).is_file()]


class _Unavailable(BaseHTTPRequestHandler):
    """A server that answers, but is no tracker: 503 to everything."""

    def _answer(self) -> None:
        self.send_response(503)
        self.end_headers()

    do_GET = do_POST = _answer

    def log_message(self, *args) -> None:
        pass


def test_a_server_that_fails_every_request_is_one_warning(session_copy, monkeypatch):
    _fail_fast(monkeypatch)
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), _Unavailable)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    try:
        uri = f"http://127.0.0.1:{httpd.server_address[1]}"
        warnings = log_session(session_copy, [f"mlflow:{uri}"])
    finally:
        httpd.shutdown()
        httpd.server_close()
    assert len(warnings) == 1
    assert warnings[0].startswith(f"could not log to mlflow:{uri}: ")
    assert "\n" not in warnings[0] and len(warnings[0]) <= 400
    assert (session_copy / "session.json").is_file()


def test_the_log_to_command_into_a_named_experiment(server, session_copy):
    server.wait_ready()
    done = subprocess.run(
        [sys.executable, "-m", "tcprof.profiler", "log-to", f"mlflow:{server.uri}"]
        + [str(session_copy), "--mlflow-experiment", "from-the-cli"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout == ""  # MLflow's own "View run" lines are hushed
    client = MlflowClient(tracking_uri=server.uri)
    parent, children = _runs(client, "from-the-cli", session_copy.name)
    (line,) = done.stderr.splitlines()
    assert line.startswith(f"tcprof: logged to MLflow: run {parent.info.run_id} in experiment")
    assert len(children) == len(_session(session_copy)["arms"])


def test_config_keys_mlflow_refuses_are_renamed_not_fatal(server, session_copy):
    """A session from elsewhere may hold config keys with any characters."""
    server.wait_ready()
    session = _session(session_copy)
    session["config"]["odd key!"] = 1
    session["config"]["plugin"] = {"a//b": "x"}
    (session_copy / "session.json").write_text(json.dumps(session))
    assert log_session(session_copy, [f"mlflow:{server.uri}"], mlflow_experiment="odd") == []
    parent, _ = _runs(MlflowClient(tracking_uri=server.uri), "odd", session_copy.name)
    assert parent.data.params["odd key_"] == "1"
    assert parent.data.params["plugin.a/b"] == "x"


def test_a_run_whose_logging_fails_half_way_is_marked_failed(session_copy, tmp_path):
    """A local store (no server) whose experiment keeps its artifacts under a file: the runs
    are made, the upload fails, and the session's run says FAILED instead of running on."""
    uri = f"sqlite:///{tmp_path / 'local.db'}"
    blocked = tmp_path / "a-file"
    blocked.write_text("")
    client = MlflowClient(tracking_uri=uri)
    client.create_experiment("broken", artifact_location=str(blocked / "artifacts"))
    warnings = log_session(session_copy, [f"mlflow:{uri}"], mlflow_experiment="broken")
    assert len(warnings) == 1 and warnings[0].startswith(f"could not log to mlflow:{uri}: ")
    parent, children = _runs(client, "broken", session_copy.name)
    assert parent.info.status == "FAILED"
    assert {r.info.status for r in children.values()} == {"FINISHED"}  # they were logged
    assert (session_copy / "session.json").is_file()
