"""The session folder's files (profiler/folders/files.py): reading with the torn-last-line rule,
loading and its errors, events rebuilt for the plots, and artefact paths that survive a move."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from tcprof.profiler.cli.main import main as tcprof
from tcprof.profiler.folders.file_paths import portable_paths
from tcprof.profiler.folders.files import (
    EVENTS_JSONL,
    SESSION_JSON,
    SessionLoadError,
    load_session,
    read_events,
    write_session_files,
)
from tcprof.profiler.folders.replay import compile_events, memory_events, step_events
from tcprof.profiler.protocol.wire import encode
from tests.support.cli import FAST, arm, run_cli

ARM_DIR = "artifacts/1-aot_eager"


def _session(folder: Path) -> dict:
    """A session dict as a run in `folder` holds it: absolute paths, some inside the folder."""
    inside = str(folder / ARM_DIR)
    return {
        "config": {
            "artifacts_dir": str(folder),
            "source": {"path": "/models/model.py"},
            "batch_sizes": [8],
        },
        "arms": [
            {"index": 0, "name": "eager", "artifacts": [], "results": []},
            {
                "index": 1,
                "name": "aot_eager",
                "artifacts": [
                    {"kind": "weights", "path": f"{inside}/weights.safetensors"},
                    {"kind": "torch_trace", "path": "/var/tmp/elsewhere/trace.log"},
                ],
                "cache_events": [
                    {"event": "saved", "saved": True, "path": f"{inside}/cache.bin"},
                    {"event": "loaded", "loaded": True},
                ],
                "results": [
                    {
                        "batch_size": 8,
                        "status": "ok",
                        "profile": {"path": f"{inside}/torch-profiler-bs8.json"},
                    }
                ],
            },
        ],
        "samples": [{"arm": "eager", "batch_size": 8, "warmup_ms": [3.0], "ms": [1.0, 2.0]}],
    }


def _paths(session: dict) -> list[str]:
    arm = session["arms"][1]
    return [
        session["config"]["artifacts_dir"],
        session["config"]["source"]["path"],
        *(a["path"] for a in arm["artifacts"]),
        arm["cache_events"][0]["path"],
        arm["results"][0]["profile"]["path"],
    ]


def _make_files(folder: Path) -> None:
    (folder / ARM_DIR).mkdir(parents=True)
    for name in ("weights.safetensors", "cache.bin", "torch-profiler-bs8.json"):
        (folder / ARM_DIR / name).write_text(name)


def test_read_events_skips_blank_lines_and_stops_at_a_torn_last_line(tmp_path):
    path = tmp_path / EVENTS_JSONL
    first, second = {"type": "log", "text": "a"}, {"type": "steps", "batch_size": 8, "ms": [1.0]}
    path.write_bytes(encode(first) + b"\n" + encode(second) + b'{"type": "st')
    assert read_events(path) == [first, second]


def test_paths_inside_the_folder_are_written_relative_and_found_after_a_move(tmp_path):
    old, new = tmp_path / "old", tmp_path / "renamed"
    _make_files(old)
    session = _session(old)
    write_session_files(session, old)
    raw = json.loads((old / SESSION_JSON).read_text())
    assert _paths(raw) == [
        ".",
        "/models/model.py",  # outside the folder: left absolute
        f"{ARM_DIR}/weights.safetensors",
        "/var/tmp/elsewhere/trace.log",
        f"{ARM_DIR}/cache.bin",
        f"{ARM_DIR}/torch-profiler-bs8.json",
    ]
    assert raw["arms"][1]["cache_events"][1] == {"event": "loaded", "loaded": True}
    assert _paths(session)[0] == str(old), "the dict written is not changed"

    shutil.move(old, new)
    loaded = load_session(new)
    assert loaded.folder == new and loaded.source == new / SESSION_JSON
    assert _paths(loaded.session) == [
        str(new),
        "/models/model.py",
        str(new / ARM_DIR / "weights.safetensors"),
        "/var/tmp/elsewhere/trace.log",
        str(new / ARM_DIR / "cache.bin"),
        str(new / ARM_DIR / "torch-profiler-bs8.json"),
    ]
    for path in _paths(loaded.session)[2:3] + _paths(loaded.session)[4:]:
        assert Path(path).is_file(), path


def test_an_old_session_with_absolute_paths_finds_its_files_where_it_was_moved(tmp_path):
    old, new = tmp_path / "old", tmp_path / "new"
    _make_files(old)
    session = _session(old)
    session["arms"][1]["artifacts"].append({"kind": "tlparse", "path": f"{old}/gone/index.html"})
    (old / SESSION_JSON).write_text(json.dumps(session))  # as tcprof wrote it before
    shutil.move(old, new)
    paths = _paths(load_session(new).session)
    assert paths == [
        str(new),
        "/models/model.py",
        str(new / ARM_DIR / "weights.safetensors"),
        "/var/tmp/elsewhere/trace.log",
        f"{old}/gone/index.html",  # not in the new place either: left as it was
        str(new / ARM_DIR / "cache.bin"),
        str(new / ARM_DIR / "torch-profiler-bs8.json"),
    ]


def test_portable_paths_leave_the_session_as_it_was_and_share_its_samples(tmp_path):
    session = _session(tmp_path)
    before = json.loads(json.dumps(session))
    portable = portable_paths(session, tmp_path)
    assert session == before
    assert portable["samples"] is session["samples"]
    assert portable["arms"][1]["artifacts"][0]["path"] == f"{ARM_DIR}/weights.safetensors"


def test_load_session_reads_a_folder_a_session_json_or_an_events_log(tmp_path):
    write_session_files(_session(tmp_path), tmp_path)
    for path in (tmp_path, tmp_path / SESSION_JSON):
        loaded = load_session(path)
        assert loaded.source == tmp_path / SESSION_JSON
        steps = [e for e in loaded.events if e["type"] == "steps"]
        assert [(e["phase"], e["start"], e["ms"]) for e in steps] == [
            ("warmup", 1, [3.0]),
            ("measure", 2, [1.0, 2.0]),
        ], "no events.jsonl: the plots' events are rebuilt from the samples"
    recorded = [{"type": "steps", "arm": 0, "batch_size": 8, "phase": "measure", "ms": [9.0]}]
    (tmp_path / EVENTS_JSONL).write_bytes(b"".join(encode(e) for e in recorded))
    assert load_session(tmp_path).events == recorded
    assert load_session(tmp_path, with_events=False).events == []


def test_load_errors_say_what_is_wrong_in_one_line(tmp_path):
    files = {
        "bad.json": (b'{"arms": [', r"is not valid JSON \(line 1, column 11\)"),
        "other.json": (b'{"hello": 1}', "is not a tcprof session"),
        "binary.json": (b"\xff\xfe\x00", "cannot read"),
        "torn.jsonl": (b'{"type": "ru', "is not a tcprof session"),
    }
    for name, (content, reason) in files.items():
        (tmp_path / name).write_bytes(content)
        with pytest.raises(SessionLoadError, match=reason) as raised:
            load_session(tmp_path / name)
        assert "\n" not in str(raised.value) and name in str(raised.value)
    with pytest.raises(SessionLoadError, match="session file not found: .*missing.json"):
        load_session(tmp_path / "missing.json")


def test_replayed_events_hold_the_samples_and_the_compile_markers():
    sample = {"arm": "a", "batch_size": 4, "warmup_ms": [], "ms": [2.0], "memory": [[3, 10.0]]}
    assert step_events(sample, 1) == [
        {"type": "steps", "arm": 1, "batch_size": 4, "phase": "measure", "start": 1, "ms": [2.0]}
    ]
    assert memory_events(sample, 1) == [
        {
            "type": "memory",
            "arm": 1,
            "batch_size": 4,
            "step": 3,
            "rss_mb": 10.0,
            "cuda_alloc_mb": None,
            "cuda_reserved_mb": None,
        }
    ]
    arm_dict = {
        "results": [
            {"batch_size": 4, "compile_status": "compiled", "compile_s": 1.5},
            {"batch_size": 8, "compile_status": "recompiled", "compile_s": 0.5},
            {"batch_size": 16, "compile_status": "recompiled", "compile_s": 0.7},
            {"batch_size": 32, "compile_status": "reused"},
        ],
        "recompiles": [{"batch_size": 16, "step": 2, "reason": "size"}],
    }
    markers = [(e["batch_size"], e["kind"], e.get("seconds")) for e in compile_events(arm_dict, 2)]
    assert markers == [(4, "first", 1.5), (8, "recompile", 0.5), (16, "recompile", None)]
    assert compile_events(arm_dict, 2)[-1]["reason"] == "size"
    # a marker replayed from the session shows what a live one shows: torch's compile timer
    # (its sum per batch size), or says that it is the compile cost when that is all there is
    first = compile_events(arm_dict, 2)[0]
    assert first["cost"] is True and "timer" not in first
    arm_dict["results"][0]["dynamo_compile_s"] = 1.1
    first = compile_events(arm_dict, 2)[0]
    assert (first["seconds"], first["timer"]) == (1.1, True) and "cost" not in first


def test_a_moved_cli_session_keeps_its_artefacts_for_report_and_load(tmp_path, capsys):
    run = tmp_path / "run"
    args = ["--example", "simple", "--arms", "eager,aot_eager", "--batch-sizes", "8"]
    rc, _, err, _ = run_cli([*args, "--save-weights", "safetensors", "--no-accuracy", *FAST], run)
    assert rc == 0, err
    raw = json.loads((run / SESSION_JSON).read_text())
    weights = next(a for a in arm(raw, "aot_eager")["artifacts"] if a["kind"] == "weights")
    assert weights["path"] == "artifacts/1-aot_eager/weights.safetensors"
    assert raw["config"]["artifacts_dir"] == "."

    moved = tmp_path / "zipped and unzipped"
    shutil.make_archive(str(tmp_path / "session"), "zip", run)
    shutil.unpack_archive(str(tmp_path / "session.zip"), moved)
    shutil.rmtree(run)
    loaded = load_session(moved)
    for a in loaded.session["arms"]:
        [saved] = [x for x in a["artifacts"] if x["kind"] == "weights"]
        assert Path(saved["path"]) == moved / "artifacts" / f"{a['index']}-{a['name']}" / (
            "weights.safetensors"
        )
        assert Path(saved["path"]).is_file()

    assert tcprof(["report", str(moved)]) == 0
    printed = capsys.readouterr().out.split("\n")
    assert str(moved / "report.html") in printed
    again = json.loads((moved / SESSION_JSON).read_text())
    assert again == raw, "regenerated in place: still relative, nothing else changed"
    assert load_session(moved).session == loaded.session
