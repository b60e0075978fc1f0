"""A session logged to W&B offline (WANDB_MODE=offline, no network) and read back with W&B's own
reader (`wandb leet inspect --json`: the run's records, one line of JSON each): one run per arm grouped by the session, the same config, step series and headline
figures as the other trackers, the session's files as an artifact; a W&B that cannot be logged
to is one warning, nothing lost."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from tcprof.profiler.config import ArmSpec
from tcprof.profiler.folders.steps_csv import STEPS_HEADER, steps_rows
from tcprof.profiler.model.session import SessionModel
from tcprof.profiler.trackers import log_session
from tcprof.profiler.trackers.content import session_log
from tests.support.synthetic import synthetic_session

pytestmark = [pytest.mark.tracker, pytest.mark.timeout(120)]
PROJECT, ENTITY = "tcprof-tests", "a-team"
SESSION_NAME = "20250101-000000-model"
BATCH_SIZES = (8, 16)
# aot_eager's measured steps, by construction (steps 3 to 6 of each batch size)
AOT_MS = [1.2, 1.1, 1.05, 0.95]


def _wandb_env(mp: pytest.MonkeyPatch, root: Path, mode: str) -> None:
    """W&B's folders (runs, staging, cache, settings) under root, nothing in the home."""
    for name in ("DIR", "DATA_DIR", "CACHE_DIR", "CONFIG_DIR", "ARTIFACT_DIR"):
        mp.setenv(f"WANDB_{name}", str(root / name.lower()))
    mp.setenv("WANDB_MODE", mode)
    mp.setenv("NETRC", str(root / "no-netrc"))
    mp.delenv("WANDB_API_KEY", raising=False)


def _teardown_wandb() -> None:
    """W&B reads its environment once per process: a test that changes it starts afresh."""
    import wandb

    wandb.teardown()


def _inspect(run_dirs: list[Path]) -> list[list[dict]]:
    """Each run's records as W&B's command line prints them (one line of JSON each), the runs
    read side by side."""
    calls = [
        subprocess.Popen(
            [sys.executable, "-m", "wandb", "leet", "inspect", "--json", str(d)],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for d in run_dirs
    ]
    out = [call.communicate(timeout=60) for call in calls]
    for call, (_stdout, stderr) in zip(calls, out, strict=True):
        assert call.returncode == 0, stderr
    return [[json.loads(line) for line in stdout.splitlines() if line.strip()] for stdout, _ in out]


def _run(records: list[dict]) -> dict:
    """A run as its records leave it: the run record (name, group, project, entity, notes), its
    config and summary with every later update applied, and its exit code."""
    (run,) = [r["run"] for r in records if r["type"] == "run"]
    config = dict(run["config"]["update"])
    summary: dict = {}
    for r in records:
        if r["type"] == "config":
            config.update(r["config"].get("update") or {})
        if r["type"] == "summary":
            summary.update(r["summary"].get("update") or {})
    config.pop("_wandb", None)
    (exit_record,) = [r["exit"] for r in records if r["type"] == "exit"]
    return {**run, "config": config, "summary": summary, "exit_code": exit_record["exit_code"]}


@pytest.fixture(scope="module")
def logged(tmp_path_factory):
    """A synthetic session (eager and aot_eager at two batch sizes, session.json alone: the
    reports are rendered for the artifact) logged offline once: (session, folder, lines,
    {arm name: (records, summary)})."""
    root = tmp_path_factory.mktemp("wandb")
    folder = root / SESSION_NAME
    folder.mkdir()
    session = synthetic_session(
        arms=(ArmSpec("eager"), ArmSpec("aot_eager")),
        batch_sizes=BATCH_SIZES,
        rounds={0: [[1.0, 1.1, 1.05, 0.95]], 1: [AOT_MS]},
    )
    (folder / "session.json").write_text(json.dumps(session))
    with pytest.MonkeyPatch.context() as mp:
        _teardown_wandb()
        _wandb_env(mp, root, "offline")
        mp.setenv("WANDB_PROJECT", PROJECT)
        mp.setenv("WANDB_ENTITY", ENTITY)
        lines: list[str] = []
        try:
            assert log_session(folder, ["wandb"], on_logged=lines.append) == []
        finally:
            _teardown_wandb()
    run_dirs = sorted((root / "dir" / "wandb").glob("offline-run-*"))
    runs = {
        run["display_name"]: (records, run)
        for records in _inspect(run_dirs)
        for run in [_run(records)]
    }
    return session, folder, lines, runs, run_dirs


def _record(records: list[dict], kind: str) -> list[dict]:
    return [r[kind] for r in records if r["type"] == kind]


def test_one_run_per_arm_grouped_by_the_session(logged):
    session, _folder, lines, runs, run_dirs = logged
    assert sorted(runs) == sorted(a["name"] for a in session["arms"])
    for _records, run in runs.values():
        assert run["run_group"] == SESSION_NAME
        assert (run["project"], run["entity"]) == (PROJECT, ENTITY)
        assert run["exit_code"] == 0 and run["job_type"] == "arm"
    assert lines == [
        f"logged to W&B offline: 2 run(s) in group '{SESSION_NAME}' of project '{PROJECT}': "
        + " ".join(str(d) for d in sorted(run_dirs, key=lambda d: d.name))
        + " (wandb sync)"
    ]


def test_the_configuration_as_config(logged):
    session, folder, _lines, runs, _dirs = logged
    config = session["config"]
    log = session_log(SessionModel.from_json(session), folder)
    for arm, arm_log in zip(session["arms"], log.arms, strict=True):
        got = runs[arm["name"]][1]["config"]
        assert got["steps"] == config["steps"] == 4
        assert got["batch_sizes"] == "8,16"
        assert got["debug.explain"] is False
        assert got["environment.torch"] == session["environment"]["torch"]
        assert got["arm.backend"] == arm["backend"]
        assert got["arm.baseline"] == (arm["name"] == session["baseline"])
        assert got["tcprof.session"] == SESSION_NAME and got["tcprof.arm"] == arm["name"]
        assert got == {
            **arm_log.params,
            **log.tags,
            "tcprof.session": SESSION_NAME,
            "tcprof.arm": arm["name"],
        }


def test_the_step_series_against_their_own_axis(logged):
    session, _folder, _lines, runs, _dirs = logged
    col = {name: i for i, name in enumerate(STEPS_HEADER)}
    records = runs["aot_eager"][0]
    metrics = {m["name"]: m for m in _record(records, "metric")}
    history = [h["item"] for h in _record(records, "history")]
    for bs in BATCH_SIZES:
        assert metrics[f"step_ms/bs{bs}"]["step_metric"] == f"step/bs{bs}"
        points = {h[f"step/bs{bs}"]: h for h in history if f"step/bs{bs}" in h}
        assert sorted(points) == [3, 4, 5, 6]  # steps.csv's step numbers
        assert [points[s][f"step_ms/bs{bs}"] for s in sorted(points)] == AOT_MS
        assert [points[s][f"throughput/bs{bs}"] for s in sorted(points)] == pytest.approx(
            [bs * 1000.0 / ms for ms in AOT_MS]
        )
        assert points[6][f"rss_mb/bs{bs}"] == 301.0
        csv_ms = [
            r[col["ms"]]
            for r in steps_rows(session)
            if r[col["arm"]] == "aot_eager" and r[col["batch_size"]] == bs
        ]
        assert csv_ms == AOT_MS


def test_the_headline_figures_in_the_summary(logged):
    session, _folder, _lines, runs, _dirs = logged
    for arm in session["arms"]:
        summary = runs[arm["name"]][1]["summary"]
        for r in arm["results"]:
            bs = r["batch_size"]
            assert summary[f"median_ms/bs{bs}"] == pytest.approx(r["median_ms"])
            assert summary[f"peak_rss_mb/bs{bs}"] == pytest.approx(r["peak_rss_mb"])
    aot = session["arms"][1]["results"][0]
    assert runs["aot_eager"][1]["summary"]["compile_s/bs8"] == pytest.approx(aot["compile_s"])


def test_notes_and_the_session_files_with_the_baseline(logged):
    session, _folder, _lines, runs, _dirs = logged
    eager_records, eager = runs["eager"]
    assert eager["notes"].startswith("eager is the baseline")
    assert eager["notes"].count("| arm | bs |") == 2  # its rows, then the whole table
    aot_notes = runs["aot_eager"][1]["notes"]
    assert aot_notes.count("| aot_eager |") == len(BATCH_SIZES)
    assert "| eager |" not in aot_notes
    (artifact,) = _record(eager_records, "artifact")
    assert (artifact["name"], artifact["type"]) == (SESSION_NAME, "tcprof-session")
    files = {f["path"]: f for f in artifact["manifest"]["contents"]}
    assert sorted(files) == ["report.html", "report.md", "session.json", "steps.csv"]
    staged = json.loads(Path(files["session.json"]["local_path"]).read_text())
    assert staged == session
    assert _record(runs["aot_eager"][0], "artifact") == []


def test_no_credentials_is_one_warning_and_nothing_lost(tmp_path, monkeypatch):
    """Online without an API key: one line saying how to log in, at once (never a prompt that
    would hang the window's logging thread); the session stays as it was."""
    folder = tmp_path / SESSION_NAME
    folder.mkdir()
    (folder / "session.json").write_text(json.dumps(synthetic_session()))
    before = sorted(p.name for p in folder.iterdir())
    _teardown_wandb()
    _wandb_env(monkeypatch, tmp_path, "online")
    try:
        warnings = log_session(folder, ["wandb:team/project"])
    finally:
        _teardown_wandb()
    assert warnings == [
        "could not log to wandb:team/project: PermissionError: no W&B credentials: "
        "run wandb login, set WANDB_API_KEY, or set WANDB_MODE=offline"
    ]
    assert sorted(p.name for p in folder.iterdir()) == before
    assert not (tmp_path / "dir").exists()  # no run was started
