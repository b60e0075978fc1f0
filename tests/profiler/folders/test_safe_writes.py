"""Writes that do not lose data: an unwritable TCPROF_HOME is one line before anything runs, a
full disk warns once and the run goes on, folder names never collide, --out never replaces an
earlier run unasked, a live run's lock keeps recovery away, and atomic writes sync their folder."""

from __future__ import annotations

import json
import os
import re
import resource
import stat
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest

from tcprof.profiler.cli.main import main as tcprof
from tcprof.profiler.folders import home as paths
from tcprof.profiler.folders import recovery
from tcprof.profiler.folders.files import (
    EVENTS_JSONL,
    SESSION_JSON,
    STEPS_CSV,
    read_events,
    save_session,
)
from tcprof.profiler.folders.outputs import EventLog, atomic_write_text
from tcprof.profiler.folders.run_folder import open_run_folder
from tcprof.profiler.folders.run_lock import RunLock, is_locked

RUN = ["run", "--example", "simple", "--arms", "eager", "--batch-sizes", "2", "--quiet"]


def test_an_unwritable_home_is_one_line_before_any_worker_starts(tmp_path, monkeypatch, capsys):
    blocker = tmp_path / "home"
    blocker.write_text("a file where the folder should be")
    for home in (blocker, blocker / "deeper"):
        monkeypatch.setenv("TCPROF_HOME", str(home))
        assert tcprof(RUN) == 2
        err = capsys.readouterr().err
        assert err == (
            f"tcprof: error: cannot save sessions in {home / 'sessions'}: {blocker} is a file, "
            "not a folder (set TCPROF_HOME to a folder you can write to)\n"
        )
    monkeypatch.setenv("TCPROF_HOME", str(tmp_path / "ok"))
    (tmp_path / "ok").mkdir()
    (tmp_path / "ok" / "sessions").write_text("")
    assert tcprof(RUN) == 2
    assert "ok/sessions is a file, not a folder" in capsys.readouterr().err


def test_an_out_folder_under_a_file_is_one_line(tmp_path, capsys):
    (tmp_path / "file").write_text("")
    assert tcprof([*RUN, "--out", str(tmp_path / "file" / "out")]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and f"{tmp_path / 'file'} is a file, not a folder" in err


def test_two_runs_in_the_same_second_with_the_same_label_get_two_folders(private_home):
    now = time.time()
    first = paths.new_session_dir("my model", now)
    second = paths.new_session_dir("my model", now)
    third = paths.new_session_dir("my model", now)
    assert first != second != third and first.is_dir() and second.is_dir() and third.is_dir()
    assert second.name == f"{first.name}-2" and third.name == f"{first.name}-3"
    assert first.name == time.strftime("%Y%m%d-%H%M%S-my-model", time.localtime(now))


def test_a_run_started_in_a_second_whose_folder_is_taken_gets_its_own(private_home):
    """Every name the CLI could pick in the next minute is taken: it must still get a folder
    of its own (and write nothing into the others)."""
    now = time.time()
    taken = [paths.new_session_dir("simple", now + s) for s in range(60)]
    args = ["--warmup", "0", "--steps", "2", "--replicates", "1", "--min-block-ms", "0"]
    proc = subprocess.run(
        [sys.executable, "-m", "tcprof.profiler", *RUN, *args, "--no-accuracy"],
        capture_output=True,
        text=True,
        timeout=240,
    )
    assert proc.returncode == 0, proc.stderr
    folder = Path(re.search(r"^session: (.+)$", proc.stderr, re.M).group(1))
    assert folder.parent == paths.sessions_dir() and folder not in taken
    assert folder.name.endswith("-simple-2") and (folder / SESSION_JSON).is_file()
    assert not any(any(t.iterdir()) for t in taken)


def test_an_out_folder_with_an_earlier_run_is_refused_unless_forced(tmp_path, capsys):
    out = tmp_path / "out"
    out.mkdir()
    (out / EVENTS_JSONL).write_text('{"type": "run_start"}\n')
    assert tcprof([*RUN, "--out", str(out)]) == 2
    err = capsys.readouterr().err
    assert err == (
        f"tcprof: error: {out} holds an earlier run (events.jsonl): choose another --out, or "
        "add --force to replace it\n"
    )
    assert (out / EVENTS_JSONL).read_text() == '{"type": "run_start"}\n', "nothing was touched"
    (out / SESSION_JSON).write_text("{}")
    (out / "notes.txt").write_text("mine")
    folder, lock = open_run_folder(str(out), True, "simple")
    try:
        assert folder == out and is_locked(out)
        assert sorted(p.name for p in out.iterdir()) == [".lock", "notes.txt"]
    finally:
        lock.release()
    assert not is_locked(out) and not (out / ".lock").exists()


def test_a_folder_a_live_run_holds_is_never_recovered(tmp_path):
    root = tmp_path / "sessions"
    live, dead = root / "live", root / "dead"
    for folder in (live, dead):
        folder.mkdir(parents=True)
        start = {"type": "run_start", "config": {"arms": [{"backend": "eager"}]}}
        (folder / EVENTS_JSONL).write_text(json.dumps(start) + "\n")
        old = time.time() - 3600  # silent for an hour: a long compile, or a dead run
        os.utime(folder / EVENTS_JSONL, (old, old))
    holder = subprocess.Popen(
        [
            sys.executable,
            "-c",
            "import sys; from tcprof.profiler.folders.run_lock import RunLock; lock = RunLock(sys.argv[1]); "
            "print('held', flush=True); sys.stdin.read()",
            str(live),
        ],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert holder.stdout.readline() == "held\n"
        assert is_locked(live) and not is_locked(dead)
        assert recovery.unfinished(root, min_age_s=0) == [dead]
        assert recovery.recover(live).status == recovery.SKIPPED
        assert [r.folder for r in recovery.recover_all(root, min_age_s=0)] == [dead]
        assert not (live / SESSION_JSON).exists(), "the live run's folder was left alone"
    finally:
        holder.stdin.close()
        holder.wait(timeout=10)
    assert not is_locked(live), "the lock ends with its process"
    assert recovery.unfinished(root, min_age_s=0) == [live]


def test_a_full_disk_stops_the_event_log_with_one_warning():
    warnings: list[dict] = []
    log = EventLog("/dev/full", on_failure=warnings.append)
    for i in range(3):
        log({"type": "log", "text": f"line {i}"})  # nothing raises into the run
    log.close()
    assert len(warnings) == 1
    assert warnings[0]["type"] == "log" and warnings[0]["stream"] == "tcprof"
    assert warnings[0]["text"].startswith("full could not be written (No space left on device)")


def test_a_session_that_cannot_be_saved_in_its_folder_is_saved_elsewhere(tmp_path, monkeypatch):
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path / "tmp"))
    (tmp_path / "tmp").mkdir()
    (tmp_path / "file").write_text("")
    session = {"arms": [], "samples": []}
    saved, problem = save_session(session, tmp_path / "file" / "run")
    assert saved is not None and saved.parent == tmp_path / "tmp"
    assert (saved / SESSION_JSON).is_file() and (saved / STEPS_CSV).is_file()
    assert problem.startswith(f"could not save the session in {tmp_path / 'file' / 'run'}")
    assert problem.endswith(f"saved it in {saved} instead")
    assert save_session(session, tmp_path / "ok") == (tmp_path / "ok", None)


def test_atomic_writes_sync_the_file_and_then_its_folder(tmp_path, monkeypatch):
    synced: list[str] = []
    real_fsync = os.fsync

    def recording_fsync(fd: int) -> None:
        synced.append("folder" if stat.S_ISDIR(os.fstat(fd).st_mode) else "file")
        real_fsync(fd)

    monkeypatch.setattr(os, "fsync", recording_fsync)
    atomic_write_text(tmp_path / "a.txt", "text")
    assert synced == ["file", "folder"]
    assert (tmp_path / "a.txt").read_text() == "text"


def test_a_run_lock_is_exclusive_and_released(tmp_path):
    with RunLock(tmp_path) as lock:
        assert lock.held and is_locked(tmp_path)
        with pytest.raises(OSError, match="another run is writing into"):
            RunLock(tmp_path)
    assert not is_locked(tmp_path)


FULL_DISK_LIMIT = 16384  # events.jsonl passes it after a few blocks; session.json stays below


def _small_files_only() -> None:
    resource.setrlimit(resource.RLIMIT_FSIZE, (FULL_DISK_LIMIT, FULL_DISK_LIMIT))


@pytest.mark.slow
def test_a_full_disk_warns_once_and_the_run_goes_on_to_save_its_session(tmp_path):
    """RLIMIT_FSIZE stands for a full disk: every write past 16 kB fails (Python ignores
    SIGXFSZ, so the write fails rather than the process). Every block is an event or three."""
    out = tmp_path / "out"
    args = ["--warmup", "0", "--steps", "40", "--blocks", "40", "--replicates", "1"]
    args += ["--min-block-ms", "0", "--no-accuracy", "--out", str(out)]
    proc = subprocess.run(
        [sys.executable, "-m", "tcprof.profiler", *RUN, *args],
        capture_output=True,
        text=True,
        timeout=240,
        preexec_fn=_small_files_only,
    )
    assert proc.returncode == 0, proc.stderr
    warnings = [line for line in proc.stderr.splitlines() if "warning" in line]
    assert warnings == [
        "tcprof: warning: events.jsonl could not be written (File too large): the run goes on, "
        "what it measures is kept in memory and saved with session.json when the run ends",
        f"tcprof: warning: could not write the reports in {out} (File too large)",
    ]
    assert (out / EVENTS_JSONL).stat().st_size == FULL_DISK_LIMIT
    session = json.loads((out / SESSION_JSON).read_text())
    assert len(session["samples"][0]["ms"]) == 40, "every measured step is kept"
    logged = read_events(out / EVENTS_JSONL)  # cut off mid-line: the torn-line rule
    assert len(session["samples"][0]["ms"]) > sum(
        len(e["ms"]) for e in logged if e["type"] == "steps" and e["phase"] == "measure"
    ), "more than the log holds"
    assert any("events.jsonl could not be written" in line["text"] for line in session["logs"])
    assert not (out / ".lock").exists()
