"""Session files tcprof did not write, or that were damaged: every problem is one line (exit 2
in `tcprof report` and `tcprof compare`), nothing hangs, nothing raises from deep inside a
reader. A session of a whole run (the scripted fake workers, no torch) is the valid start each
bad file is made from."""

from __future__ import annotations

import copy
import json
import os
import subprocess
import sys
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tcprof.profiler.cli.main import main as tcprof
from tcprof.profiler.config import ArmSpec, ModelSource, RunConfig
from tcprof.profiler.folders.files import (
    EVENTS_JSONL,
    MAX_SESSION_BYTES,
    SESSION_JSON,
    SessionLoadError,
    iter_events,
    load_session,
    write_session_files,
)
from tcprof.profiler.protocol.event_schema import event_problem
from tcprof.profiler.protocol.session_schema import session_problem
from tcprof.profiler.protocol.wire import encode
from tcprof.profiler.report.sections.source_context import source_context
from tcprof.profiler.run.runner import Runner
from tcprof.profiler.session.fold import SessionFold
from tests.support.fake_worker import FakeWorkers

PROMPT_S = 5.0


@pytest.fixture(scope="module")
def fake_run() -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """The session dict and the events of a two-arm run, accuracy pass included."""
    config = RunConfig(
        source=ModelSource("model.py"),
        arms=(ArmSpec("eager"), ArmSpec("aot_eager")),
        batch_sizes=(8, 16),
        warmup=1,
        steps=4,
        blocks=2,
        replicates=2,
        min_block_ms=0,
        threads=1,
        accuracy=True,
        timeout_s=10,
    )
    events: list[dict[str, Any]] = []
    session = Runner(config, listeners=[events.append], worker_factory=FakeWorkers()).run()
    return session.to_dict(), events


def _saved(folder: Path, session: dict[str, Any]) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / SESSION_JSON).write_text(json.dumps(session))
    return folder / SESSION_JSON


def _one_line_error(capsys, argv: list[str]) -> str:
    """Run a command in this process (a traceback would fail the test): exit 2, one line."""
    assert tcprof(argv) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("tcprof: error: "), err
    return err


def test_every_event_and_the_session_of_a_whole_run_pass_the_checks(fake_run):
    session, events = fake_run
    assert {e["type"] for e in events} >= {"run_start", "steps", "compile", "bs_done", "accuracy"}
    assert [event_problem(e) for e in events if event_problem(e)] == []
    assert session_problem(session) is None


def _set(path: str, value: Any) -> Callable[[dict[str, Any]], None]:
    """A change at a dotted path with [i] indices: 'arms[1].results[0].median_ms'."""

    def change(session: dict[str, Any]) -> None:
        keys = path.replace("[", ".").replace("]", "").split(".")
        target: Any = session
        for key in keys[:-1]:
            target = target[int(key)] if key.isdigit() else target[key]
        last = keys[-1]
        target[int(last) if last.isdigit() else last] = value

    return change


WRONG = {
    "a string for a number": (
        _set("arms[1].results[0].median_ms", "fast"),
        "arms[1].results[0].median_ms is a string, expected a number",
    ),
    "a number for a name": (
        _set("arms[0].name", 3),
        "arms[0].name is an integer, expected a string",
    ),
    "a string batch size": (
        _set("config.batch_sizes[1]", "16"),
        "config.batch_sizes[1] is a string, expected an integer",
    ),
    "a null step time": (_set("samples[0].ms[2]", None), "samples[0].ms[2] is null"),
    "an interval of nulls": (
        _set("arms[1].results[0].speedup_ci", [None, None]),
        "arms[1].results[0].speedup_ci[0] is null, expected a number",
    ),
    "an error that is text": (
        _set("errors", ["boom"]),
        "errors[0] is a string, expected an object",
    ),
    "a log line that is a list": (_set("logs", [{"text": ["a"]}]), "logs[0].text is a list"),
    "blocks that count more steps than there are": (
        _set("samples[0].blocks", [[0, 0, 10**12]]),
        "samples[0].blocks counts 1000000000000 steps, but ms holds",
    ),
    "a graph break without its count": (
        _set("arms[1].graph_breaks", [{"reason": "x"}]),
        "arms[1].graph_breaks[0].count is missing",
    ),
    "an environment that is text": (_set("environment", "cpu"), "environment is a string"),
    "a result without a status": (
        lambda s: s["arms"][0]["results"][0].pop("status"),
        "arms[0].results[0].status is missing",
    ),
    "a worst error that is not a number": (
        _set("arms[1].results[0].accuracy.worst", {"name": "w", "max_abs_err": "big"}),
        "arms[1].results[0].accuracy.worst.max_abs_err is a string, expected a number",
    ),
    "an arms list that is an object": (_set("arms", {"eager": {}}), "no 'arms' list"),
}


@pytest.mark.parametrize("case", list(WRONG))
def test_a_wrong_type_is_one_line_naming_the_field(case, fake_run, tmp_path, capsys):
    session, _ = fake_run
    change, expected = WRONG[case]
    bad = copy.deepcopy(session)
    change(bad)
    path = _saved(tmp_path / "bad", bad)
    with pytest.raises(SessionLoadError) as raised:
        load_session(path)
    assert expected in str(raised.value) and "\n" not in str(raised.value)
    assert str(path) in str(raised.value), "the line names the file"
    err = _one_line_error(capsys, ["report", str(path), "--out", str(tmp_path / "r")])
    assert expected in err
    assert not (tmp_path / "r").exists(), "nothing is written for a bad session"
    good = _saved(tmp_path / "good", session)
    assert expected in _one_line_error(capsys, ["compare", str(good), str(path)])


def test_a_good_session_still_reports_and_compares(fake_run, tmp_path, capsys):
    session, _ = fake_run
    path = _saved(tmp_path / "good", session)
    assert tcprof(["report", str(path), "--format", "md"]) == 0
    assert tcprof(["compare", str(path), str(path)]) == 0
    assert "unchanged" in capsys.readouterr().out


def _nested(depth: int) -> str:
    return '{"arms": [], "config": {"x": ' + "[" * depth + "]" * depth + "}}"


def test_deep_nesting_is_refused_before_parsing_without_recursion(tmp_path, capsys):
    for depth in (10_000, 100_000):
        path = tmp_path / f"deep{depth}.json"
        path.write_text(_nested(depth))
        with pytest.raises(SessionLoadError, match="nests deeper than 64 levels"):
            load_session(path)
    proc = subprocess.run(
        [sys.executable, "-m", "tcprof.profiler", "report", str(tmp_path / "deep10000.json")],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert proc.returncode == 2
    assert proc.stderr.count("\n") == 1 and "nests deeper than 64 levels" in proc.stderr
    assert "Traceback" not in proc.stderr
    (tmp_path / "ok.json").write_text(_nested(40))  # shallow enough: a session without arms
    assert load_session(tmp_path / "ok.json").session["arms"] == []


def test_a_deep_line_in_events_ends_them_like_a_torn_line(fake_run, tmp_path):
    _, events = fake_run
    path = tmp_path / EVENTS_JSONL
    path.write_bytes(
        encode(events[0]) + ("[" * 10_000 + "]" * 10_000 + "\n").encode() + encode(events[1])
    )
    assert list(iter_events(path)) == [events[0]]


def test_a_50_mb_line_is_read_in_session_json_and_skipped_in_events(fake_run, tmp_path):
    session, events = fake_run
    big = copy.deepcopy(session)
    big["logs"] = [{"arm": 0, "stream": "output", "text": "x" * (50 << 20)}]
    path = tmp_path / "big" / SESSION_JSON
    path.parent.mkdir()
    path.write_text(json.dumps(big, separators=(",", ":")))  # one line
    assert path.stat().st_size > 50 << 20 and path.read_bytes().count(b"\n") == 0
    loaded = load_session(path, with_events=False)
    assert len(loaded.session["logs"][0]["text"]) == 50 << 20

    log = tmp_path / EVENTS_JSONL
    with open(log, "wb") as f:
        f.write(encode(events[0]))
        f.write(b'{"type": "log", "text": "' + b"y" * (50 << 20) + b'"}\n')
        f.write(encode(events[1]))
    skipped: list[str] = []
    assert list(iter_events(log, skipped)) == [events[0], events[1]]
    assert skipped == ["line 2 is longer than 8 MB"]


def test_a_session_json_over_the_size_limit_is_refused_unread(tmp_path):
    path = tmp_path / SESSION_JSON
    with open(path, "wb") as f:
        f.truncate(MAX_SESSION_BYTES + 1)  # sparse: nothing is written
    with pytest.raises(SessionLoadError, match="more than the 256 MB tcprof opens"):
        load_session(path)


def test_events_with_wrong_types_are_left_out_and_the_rest_folded(fake_run, tmp_path):
    _, events = fake_run
    steps = next(e for e in events if e["type"] == "steps" and e["phase"] == "measure")
    compile_ = next(e for e in events if e["type"] == "compile")
    bad = [
        {**steps, "batch_size": "8"},
        {**steps, "ms": "fast"},
        {**compile_, "step": None},
        {**steps, "replicate": [0]},
        {"no": "type"},
    ]
    path = tmp_path / EVENTS_JSONL
    path.write_bytes(b"".join(encode(e) for e in [*events[:5], *bad, *events[5:]]))
    skipped: list[str] = []
    folded = SessionFold.from_events(iter_events(path, skipped))
    assert len(skipped) == len(bad) and skipped[0].startswith("line 6: steps event: batch_size")
    assert (
        folded.to_dict()["arms"]
        == SessionFold.from_events(iter_events(_log(tmp_path, events))).to_dict()["arms"]
    )
    loaded = load_session(path)
    assert loaded.session["status"] == "completed" and loaded.events


def _log(tmp_path: Path, events: list[dict[str, Any]]) -> Path:
    path = tmp_path / "good.jsonl"
    path.write_bytes(b"".join(encode(e) for e in events))
    return path


def test_a_run_start_with_a_bad_config_says_why_there_is_no_session(fake_run, tmp_path):
    _, events = fake_run
    start = copy.deepcopy(events[0])
    start["config"]["batch_sizes"] = ["8"]
    path = tmp_path / EVENTS_JSONL
    path.write_bytes(b"".join(encode(e) for e in [start, *events[1:]]))
    with pytest.raises(SessionLoadError) as raised:
        load_session(path)
    assert "no run_start event: line 1: run_start event: config.batch_sizes[0] is a string" in str(
        raised.value
    )


def _returns_promptly(call: Callable[[], Any]) -> Any:
    """The call's result; the test fails (rather than hangs) if it blocks."""
    outcome: list[Any] = []

    def target() -> None:
        try:
            outcome.append(call())
        except Exception as exc:
            outcome.append(exc)

    thread = threading.Thread(target=target, daemon=True)
    thread.start()
    thread.join(PROMPT_S)
    assert not thread.is_alive(), "the call blocked"
    if isinstance(outcome[0], Exception):
        raise outcome[0]
    return outcome[0]


def test_source_context_reads_only_small_regular_files(tmp_path):
    fifo = tmp_path / "model.py"
    os.mkfifo(fifo)
    text = _returns_promptly(lambda: source_context(str(fifo), 3))
    assert text == f"{fifo}:3 (cannot read: not a regular file)"
    zero = _returns_promptly(lambda: source_context("/dev/zero", 1))
    assert zero == "/dev/zero:1 (cannot read: not a regular file)"
    huge = tmp_path / "huge.py"
    huge.write_bytes(b"x = 1\n" * 200_000)
    assert source_context(str(huge), 2).endswith("(cannot read: larger than 1 MB)")
    small = tmp_path / "small.py"
    small.write_text("".join(f"line {n}\n" for n in range(1, 11)))
    assert "> 5 | line 5" in source_context(str(small), 5, around=1)
    assert source_context(str(small), "5") == "(no source location)"


def test_a_fifo_where_the_session_file_should_be_is_refused_at_once(tmp_path):
    os.mkfifo(tmp_path / SESSION_JSON)
    with pytest.raises(SessionLoadError, match="is not a regular file"):
        _returns_promptly(lambda: load_session(tmp_path))


def test_a_written_session_loads_back_unchanged_by_the_checks(fake_run, tmp_path):
    session, _ = fake_run
    write_session_files(session, tmp_path)
    loaded = load_session(tmp_path)
    assert loaded.session["arms"][1]["results"] == session["arms"][1]["results"]
