"""Recover sessions whose run never finished writing them.

A run appends every event to events.jsonl as it arrives and writes session.json only when it
ends or is stopped. If the app (or the machine) dies mid-run, the folder keeps events.jsonl but
no session.json. A live run holds its folder's lock (profiler/folders/run_lock.py) however long it is
silent, and a folder whose lock is held is never taken; the lock ends with the process, so a
dead run's folder is free. On the next start the GUI calls `recover_all()`: each such folder is rebuilt
with `SessionFold.from_events` (status "interrupted", with everything measured up to the crash) and
written by the engine's own writer (`write_session_files`), so the session opens, lists and
exports like any other. Pure Python: no torch, no Qt, usable from the CLI or tests.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from pathlib import Path

from tcprof.profiler.folders.files import (
    EVENTS_JSONL,
    SESSION_JSON,
    iter_events,
    write_session_files,
)
from tcprof.profiler.folders.home import sessions_dir
from tcprof.profiler.folders.run_lock import FolderInUse, RunLock, is_locked
from tcprof.profiler.session.fold import SessionFold

# A folder whose events.jsonl changed this recently may belong to a run of a tcprof too old to
# hold a lock: leave it for a later start.
DEFAULT_MIN_AGE_S = 30.0
SKIPPED = "skipped"  # a live run took the folder, or finished, between the scan and the recovery


@dataclass(frozen=True)
class Recovered:
    """One folder that was (or could not be) recovered."""

    folder: Path
    status: str  # the recovered session's status ("interrupted"), "failed" or "skipped"
    steps: int  # measured + warm-up steps that were kept
    error: str | None = None


def unfinished(root: str | Path | None = None, min_age_s: float = DEFAULT_MIN_AGE_S) -> list[Path]:
    """Session folders under root (default: sessions_dir()) with events.jsonl, no session.json,
    no live run holding them, and no write to events.jsonl in the last min_age_s seconds;
    oldest first."""
    base = Path(root) if root is not None else sessions_dir()
    try:
        folders = list(base.iterdir()) if base.is_dir() else []
    except OSError:
        return []
    now = time.time()
    found = []
    for folder in folders:
        events = folder / EVENTS_JSONL
        try:
            if not folder.is_dir() or (folder / SESSION_JSON).exists() or not events.is_file():
                continue
            if events.stat().st_size == 0 or now - events.stat().st_mtime < min_age_s:
                continue
            if is_locked(folder):
                continue
        except OSError:
            continue
        found.append(folder)
    return sorted(found, key=lambda f: f.name)


def recover(folder: str | Path) -> Recovered:
    """Rebuild one folder's session from its events.jsonl and write session.json/steps.csv."""
    folder = Path(folder)
    try:
        with RunLock(folder):  # a run that started meanwhile keeps its folder
            if (folder / SESSION_JSON).exists():
                return Recovered(folder, SKIPPED, 0, "the run finished meanwhile")
            return _rebuild(folder)
    except FolderInUse:
        return Recovered(folder, SKIPPED, 0, "a live run is writing into it")
    except OSError as exc:
        return Recovered(folder, "failed", 0, f"{type(exc).__name__}: {exc}")


def _rebuild(folder: Path) -> Recovered:
    try:
        session = SessionFold.from_events(iter_events(folder / EVENTS_JSONL))
        if not session.config:
            return Recovered(folder, "failed", 0, "events.jsonl holds no run_start event")
        write_session_files(session.to_dict(), folder)
    except Exception as exc:  # one bad folder must not stop the others
        return Recovered(folder, "failed", 0, f"{type(exc).__name__}: {exc}")
    steps = sum(len(r.ms) + len(r.warmup_ms) for a in session.arms for r in a.results.values())
    return Recovered(folder, session.status, steps)


def recover_all(
    root: str | Path | None = None, min_age_s: float = DEFAULT_MIN_AGE_S
) -> list[Recovered]:
    """Recover every unfinished session under root; returns what happened to each (a folder a
    live run holds is left out)."""
    results = [recover(folder) for folder in unfinished(root, min_age_s)]
    return [r for r in results if r.status != SKIPPED]


def describe(results: list[Recovered]) -> str:
    """One line for a status bar: what was recovered, and what could not be."""
    ok = [r for r in results if r.status != "failed"]
    bad = [r for r in results if r.status == "failed"]
    parts = []
    if ok:
        names = ", ".join(r.folder.name for r in ok[:3]) + (" …" if len(ok) > 3 else "")
        parts.append(
            f"Recovered {len(ok)} interrupted session(s) from events.jsonl ({names}): "
            "open them from Sessions"
        )
    if bad:
        parts.append(f"could not recover {len(bad)}: {bad[0].folder.name}: {bad[0].error}")
    return "; ".join(parts)
