"""One recorded run behind three doors: `tcprof run`, `tcprof.run` and the window's run thread,
given the same options and the scripted fake worker, leave the same session folder (the same
files, named the same way; session.json equal but for times, paths and ids)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from tcprof.app.run.profiler_thread import ProfilerThread
from tcprof.profiler.folders.files import SESSION_JSON
from tcprof.profiler.folders.home import sessions_dir
from tcprof.profiler.recording import entry
from tcprof.profiler.recording.options import config_from_options
from tcprof.profiler.run.runner import Runner
from tests.support.cli import cli_in_process, fast_args
from tests.support.fake_worker import FakeWorkers

OPTIONS = ["--example", "simple", "--arms", "eager,aot_eager", *fast_args(batch_sizes="8")]
KEYWORDS: dict[str, Any] = dict(
    example="simple",
    arms="eager,aot_eager",
    warmup=1,
    steps=6,
    blocks=2,
    replicates=1,
    min_block_ms=0,
    batch_sizes=8,
    no_accuracy=True,
    quiet=True,
)
# What differs between two runs of one config, whichever door: when, where, which process,
# and how long each part took (the timeline).
VARYING = {"started_at", "ended_at", "t", "cache_dir", "timeline"}


def _fake_runner(config, listeners):
    return Runner(config, listeners, worker_factory=FakeWorkers())


def _new_folder(before: set[Path]) -> Path:
    (folder,) = set(sessions_dir().iterdir()) - before
    return folder


def _files(folder: Path) -> set[str]:
    return {str(p.relative_to(folder)) for p in folder.rglob("*") if p.is_file()}


def _steady(value: Any) -> Any:
    """session.json without what varies between runs."""
    if isinstance(value, dict):
        return {k: _steady(v) for k, v in value.items() if k not in VARYING}
    if isinstance(value, list):
        return [_steady(v) for v in value]
    return value


def _differences(a: Any, b: Any, at: str = "") -> list[str]:
    """Where two JSON values differ, as key paths."""
    if isinstance(a, dict) and isinstance(b, dict):
        keys = list(dict.fromkeys([*a, *b]))
        return [d for k in keys for d in _differences(a.get(k), b.get(k), f"{at}.{k}")]
    if isinstance(a, list) and isinstance(b, list) and len(a) == len(b):
        return [
            d
            for i, (x, y) in enumerate(zip(a, b, strict=True))
            for d in _differences(x, y, f"{at}[{i}]")
        ]
    return [] if a == b else [f"{at}: {a!r} != {b!r}"[:160]]


def test_the_three_doors_leave_the_same_folder(qtbot, monkeypatch):
    import tcprof

    monkeypatch.setattr(entry, "default_runner", _fake_runner)
    folders: dict[str, Path] = {}

    before = set(sessions_dir().iterdir()) if sessions_dir().exists() else set()
    code, _out, err = cli_in_process(["run", *OPTIONS])
    assert code == 0, err
    folders["cli"] = _new_folder(before)

    before = set(sessions_dir().iterdir())
    tcprof.run(progress=False, **KEYWORDS)
    folders["api"] = _new_folder(before)

    from tcprof.profiler.cli.main import build_parser

    config = config_from_options(vars(build_parser().parse_args(["run", *OPTIONS])))
    thread = ProfilerThread(config, [], _fake_runner, save=True)
    with qtbot.waitSignal(thread.finished, timeout=30_000):
        thread.start()
    thread.wait()
    assert thread.save_error is None and thread.crash is None
    folders["window"] = thread.session_dir

    labels = {door: folder.name.split("-")[2] for door, folder in folders.items()}
    assert set(labels.values()) == {"simple"}, f"each door names its folder alike: {folders}"
    files = {door: _files(folder) for door, folder in folders.items()}
    assert {"session.json", "steps.csv", "events.jsonl", "report.html", "report.md"} <= files["cli"]
    assert files["api"] == files["cli"] and files["window"] == files["cli"]
    sessions = {
        door: _steady(json.loads((folder / SESSION_JSON).read_text()))
        for door, folder in folders.items()
    }
    for door in ("api", "window"):
        differences = _differences(sessions[door], sessions["cli"])
        assert not differences, f"{door} against cli:\n" + "\n".join(differences)
