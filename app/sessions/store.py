"""The saved sessions the window lists: model, arms, date and status of each, read cheaply.

Qt-free on purpose (cheap to test, usable off the GUI thread). Opening a session, its files and
the events that restore its plots belong to the engine's profiler/store/files.py; the names
this module re-exports from there are the ones the window imports.
"""

from __future__ import annotations

import json
import os
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tcprof.profiler.config.paths import sessions_dir
from tcprof.profiler.protocol import safe_json
from tcprof.profiler.protocol.session_schema import session_problem
from tcprof.profiler.store.files import (
    EVENTS_JSONL,
    MAX_SESSION_BYTES,
    SESSION_JSON,
    LoadedSession,
    SessionLoadError,
    iter_events,
    load_session,
    open_regular,
    read_events,
)
from tcprof.profiler.store.replay import synthesise_events

# Names the window imports from here (opening a session is the engine's job).
SESSION = SESSION_JSON
EVENTS = EVENTS_JSONL
__all__ = [
    "EVENTS",
    "SESSION",
    "LoadedSession",
    "SavedSession",
    "SessionLoadError",
    "list_sessions",
    "load_session",
    "read_events",
    "synthesise_events",
]

UNREADABLE = "unreadable"
# session.json's status as the Sessions list shows it.
STATUS_TEXT = {
    "completed": "completed",
    "completed_with_errors": "completed with errors",
    "stopped": "stopped (partial)",
    "timeout": "timed out (partial)",
    "interrupted": "interrupted, recovered (partial)",
    "running": "running or cut off",
}


def status_text(status: str) -> str:
    return STATUS_TEXT.get(status, status.replace("_", " "))


HEAD_BYTES = 65536  # session.json puts status and times first: the head is enough to list it
_HEAD_FIELDS = re.compile(r'"(status|started_at)":\s*("(?:[^"\\]|\\.)*"|[-\d.eE+]+|null)')


@dataclass(frozen=True)
class SavedSession:
    """One row of the Sessions list; `problem` says why a folder cannot be opened."""

    folder: Path
    started_at: float | None
    model: str
    arms: tuple[str, ...]
    status: str
    problem: str | None = None

    @property
    def path(self) -> Path:
        return self.folder / SESSION

    @property
    def status_text(self) -> str:
        return status_text(self.status)


class _Unreadable(Exception):
    """The folder's session cannot be listed (the message says why)."""


def _first_event(path: Path) -> dict[str, Any] | None:
    try:
        return next(iter_events(path), None) if path.is_file() else None
    except (OSError, ValueError):
        return None


def _head(path: Path) -> tuple[str, int]:
    """The start of session.json (read as text whatever it holds) and its size."""
    try:
        with open_regular(path) as f:
            size = os.fstat(f.fileno()).st_size
            head = f.read(HEAD_BYTES).decode("utf-8", errors="replace")
    except OSError as exc:
        raise _Unreadable(f"cannot read {SESSION} ({exc.strerror or exc})") from exc
    if size > MAX_SESSION_BYTES:
        raise _Unreadable(f"{SESSION} is {size >> 20} MB, more than tcprof opens")
    if not head.lstrip().startswith("{"):
        raise _Unreadable(f"{SESSION} is not a tcprof session")
    return head, size


def _config(folder: Path, head: str, size: int) -> dict[str, Any]:
    """The run's config: from events.jsonl's first event, else from a session.json small
    enough to read whole (which is then checked whole, as opening it would)."""
    start = _first_event(folder / EVENTS)
    if start and start.get("type") == "run_start":
        return start["config"]  # iter_events checked it
    if size > HEAD_BYTES:
        return {}
    try:
        session = safe_json.loads(head)
    except ValueError as exc:
        raise _Unreadable(f"{SESSION} {exc}") from exc
    problem = session_problem(session)
    if problem:
        raise _Unreadable(f"{SESSION}: {problem}")
    return session.get("config") or {}


def _summary_of(folder: Path) -> SavedSession:
    """Model, arms, date and status without parsing a possibly huge session.json in full."""
    try:
        head, size = _head(folder / SESSION)
        config = _config(folder, head, size)
    except _Unreadable as exc:
        return SavedSession(folder, None, str(exc), (), UNREADABLE, problem=str(exc))
    fields: dict[str, Any] = {}
    for key, raw in _HEAD_FIELDS.findall(head):
        if key not in fields:
            try:
                fields[key] = json.loads(raw)
            except ValueError:
                pass
    source = config.get("source") or {}
    path = Path(str(source.get("path") or "?"))
    model = source.get("factory") or source.get("model") or ""
    arms = tuple(str(a.get("label") or a.get("backend") or "?") for a in config.get("arms") or [])
    started = fields.get("started_at")
    return SavedSession(
        folder=folder,
        started_at=float(started) if _is_time(started) else None,
        model=f"{model} ({path.name})" if model else path.name,
        arms=arms,
        status=str(fields.get("status") or "?"),
    )


def _is_time(value: Any) -> bool:
    """A Unix time a clock can show (not a string, not infinity, not year 5000)."""
    return isinstance(value, (int, float)) and not isinstance(value, bool) and 0 <= value < 1e11


def list_sessions(root: str | Path | None = None) -> list[SavedSession]:
    """Saved sessions under root (default: sessions_dir()), newest first; a folder whose
    session.json cannot be read is listed too, as unreadable, with the reason."""
    base = Path(root) if root is not None else sessions_dir()
    try:
        folders = [f for f in base.iterdir() if os.path.lexists(f / SESSION)]
    except OSError:
        return []
    found = [_summary_of(folder) for folder in folders]
    return sorted(found, key=lambda s: (s.started_at or 0.0, s.folder.name), reverse=True)
