"""Recovery of sessions whose run died before writing session.json (profiler/folders/recovery.py)."""

from __future__ import annotations

import json
import os
import time

import pytest

from tcprof.profiler.config.examples import list_examples
from tcprof.profiler.folders import recovery
from tests.support.cli import run_cli

SIMPLE = str(list_examples()["simple"][0])


@pytest.fixture(scope="module")
def finished_run(tmp_path_factory):
    out = tmp_path_factory.mktemp("run")
    code, _, err, session = run_cli(
        [
            SIMPLE,
            "--arms",
            "eager,aot_eager",
            "--batch-sizes",
            "8,16",
            "--warmup",
            "1",
            "--steps",
            "5",
            "--blocks",
            "1",
            "--min-block-ms",
            "0",
            "--no-accuracy",
            "--quiet",
        ],
        out,
    )
    assert code == 0, err
    return out, session


def _crashed_copy(finished_run, root, name, keep_fraction=0.6):
    """A session folder as a crash mid-run leaves it: events.jsonl cut off (with a torn last
    line), no session.json."""
    src, _ = finished_run
    lines = (src / "events.jsonl").read_text().splitlines(keepends=True)
    keep = lines[: int(len(lines) * keep_fraction)]
    assert not any('"run_end"' in line for line in keep)
    folder = root / name
    folder.mkdir(parents=True)
    (folder / "events.jsonl").write_text("".join(keep) + lines[len(keep)][:17])
    old = time.time() - 3600
    os.utime(folder / "events.jsonl", (old, old))
    return folder


def test_a_run_cut_off_mid_way_is_recovered_as_interrupted(finished_run, tmp_path):
    folder = _crashed_copy(finished_run, tmp_path, "20260101-000000-simple")
    assert recovery.unfinished(tmp_path) == [folder]
    results = recovery.recover_all(tmp_path)
    assert [r.folder for r in results] == [folder]
    assert results[0].status == "interrupted" and results[0].steps > 0
    saved = json.loads((folder / "session.json").read_text())
    assert saved["status"] == "interrupted"
    assert [a["name"] for a in saved["arms"]] == ["eager", "aot_eager"]
    measured = [s for s in saved["samples"] if s["ms"] or s["warmup_ms"]]
    assert measured, "what was measured before the crash is kept"
    assert (folder / "steps.csv").read_text().startswith("arm,batch_size,replicate,block,step")
    assert "Recovered 1 interrupted session" in recovery.describe(results)
    # Recovered once: the next start finds nothing to do.
    assert recovery.unfinished(tmp_path) == []


def test_finished_recent_and_empty_folders_are_left_alone(finished_run, tmp_path):
    src, _ = finished_run
    done = tmp_path / "done"
    done.mkdir()
    for name in ("events.jsonl", "session.json"):
        (done / name).write_bytes((src / name).read_bytes())
    recent = _crashed_copy(finished_run, tmp_path, "recent")
    os.utime(recent / "events.jsonl")  # written just now: may be a run in another window
    empty = tmp_path / "empty"
    empty.mkdir()
    (empty / "events.jsonl").write_text("")
    (tmp_path / "stray-file").write_text("x")
    assert recovery.unfinished(tmp_path) == []
    assert recovery.unfinished(tmp_path, min_age_s=0) == [recent]
    assert recovery.unfinished(tmp_path / "missing") == []


def test_a_folder_without_a_run_start_is_reported_not_raised(tmp_path):
    folder = tmp_path / "garbage"
    folder.mkdir()
    (folder / "events.jsonl").write_text('{"type": "log", "t": 0, "text": "hi"}\nnot json\n')
    results = recovery.recover_all(tmp_path, min_age_s=0)
    assert results[0].status == "failed" and "run_start" in results[0].error
    assert not (folder / "session.json").exists()
    assert "could not recover 1" in recovery.describe(results)
