"""The saved sessions the window lists: model, arms, date and status of each, read cheaply.

Qt-free on purpose (cheap to test, usable off the GUI thread). Opening a session, its files and
the events that restore its plots belong to the engine's profiler/session_files.py; the names
this module re-exports from there are the ones the window imports.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from profiler.paths import sessions_dir
from profiler.session_files import (
    EVENTS_JSONL,
    SESSION_JSON,
    LoadedSession,
    SessionLoadError,
    iter_events,
    load_session,
    read_events,
)
from profiler.session_replay import synthesise_events

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

HEAD_BYTES = 65536  # session.json puts status and times first: the head is enough to list it
_HEAD_FIELDS = re.compile(r'"(status|started_at)":\s*("(?:[^"\\]|\\.)*"|[-\d.eE+]+|null)')


@dataclass(frozen=True)
class SavedSession:
    """One row of the Sessions list."""

    folder: Path
    started_at: float | None
    model: str
    arms: tuple[str, ...]
    status: str

    @property
    def path(self) -> Path:
        return self.folder / SESSION


def _first_event(path: Path) -> dict[str, Any] | None:
    try:
        return next(iter_events(path), None)
    except (OSError, ValueError):
        return None


def _summary_of(folder: Path) -> SavedSession | None:
    """Model, arms, date and status without parsing a possibly huge session.json in full."""
    fields: dict[str, Any] = {}
    try:
        with open(folder / SESSION, encoding="utf-8", errors="replace") as f:
            head = f.read(HEAD_BYTES)
    except OSError:
        return None
    for key, raw in _HEAD_FIELDS.findall(head):
        if key not in fields:
            try:
                fields[key] = json.loads(raw)
            except ValueError:
                pass
    config: dict[str, Any] = {}
    start = _first_event(folder / EVENTS)
    if start and start.get("type") == "run_start":
        config = start.get("config") or {}
    elif (folder / SESSION).stat().st_size <= HEAD_BYTES:
        try:
            config = json.loads(head).get("config") or {}
        except ValueError:
            return None
    source = config.get("source") or {}
    path = Path(str(source.get("path") or "?"))
    model = source.get("factory") or source.get("model") or ""
    arms = []
    for a in config.get("arms") or []:
        arms.append(str(a.get("label") or a.get("backend") or "?"))
    started = fields.get("started_at")
    return SavedSession(
        folder=folder,
        started_at=float(started) if isinstance(started, (int, float)) else None,
        model=f"{model} ({path.name})" if model else path.name,
        arms=tuple(arms),
        status=str(fields.get("status") or "?"),
    )


def list_sessions(root: str | Path | None = None) -> list[SavedSession]:
    """Saved sessions under root (default: sessions_dir()), newest first."""
    base = Path(root) if root is not None else sessions_dir()
    if not base.is_dir():
        return []
    found = []
    for folder in base.iterdir():
        if (folder / SESSION).is_file():
            item = _summary_of(folder)
            if item is not None:
                found.append(item)
    return sorted(found, key=lambda s: (s.started_at or 0.0, s.folder.name), reverse=True)
