"""The saved sessions the window lists: model, arms, date, status and best speedup of each,
read cheaply.

Qt-free on purpose (cheap to test, usable off the GUI thread). Opening a session, its files and
the events that restore its plots belong to the engine's profiler/folders/files.py; the names
this module re-exports from there are the ones the window imports.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeGuard

from tcprof.profiler.analysis.verdict import NOT_SETTLED
from tcprof.profiler.folders.files import (
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
from tcprof.profiler.folders.home import sessions_dir
from tcprof.profiler.folders.replay import synthesise_events
from tcprof.profiler.model.arm import Arm
from tcprof.profiler.model.options import RunOptions
from tcprof.profiler.protocol import safe_json, units
from tcprof.profiler.protocol.session_schema import session_problem

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
# ...and its arms (with their speedups) before the samples and logs, which make it large: the
# list reads up to the arms, from this much on (twice as much each time, up to the limit).
ARMS_FIRST_READ = 256 << 10
ARMS_READ_LIMIT = 16 << 20
_DECODER = json.JSONDecoder(parse_constant=lambda _c: None)
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
    speedup: str = ""  # the best compiled arm's: '1.84x inductor bs 32' ('' if none)
    speedups: str = ""  # every compiled arm's, one line each (the cell's tooltip)

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
        config: dict[str, Any] = start["config"]  # iter_events checked it
        return config
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
    status, started = _head_fields(head)
    source = RunOptions.of(config).source  # the model file, read as the model reads it
    path = Path(source.path or "?")
    model = source.factory or source.model or ""
    arms = tuple(str(a.get("label") or a.get("backend") or "?") for a in config.get("arms") or [])
    best, every = speedups(arms_of(_top_level(folder / SESSION, "arms")))
    return SavedSession(
        folder=folder,
        started_at=float(started) if _is_time(started) else None,
        model=f"{model} ({path.name})" if model else path.name,
        arms=arms,
        status=str(status or "?"),
        speedup=best,
        speedups=every,
    )


def _head_fields(head: str) -> tuple[object, object]:
    """session.json's status and start time, read from its head (the first of each)."""
    found: list[tuple[str, object]] = []
    for key, raw in _HEAD_FIELDS.findall(head):
        try:
            found.append((key, json.loads(raw)))
        except ValueError:
            pass
    status = next((v for k, v in found if k == "status"), None)
    return status, next((v for k, v in found if k == "started_at"), None)


def _skip_space(text: str, i: int) -> int:
    while i < len(text) and text[i] in " \t\r\n":
        i += 1
    return i


def _value_in(text: str, key: str) -> Any:
    """The value of a top-level key of the JSON object `text` begins, parsing only the keys
    before it; ValueError or IndexError if the text ends first (or is not such an object)."""
    i = _skip_space(text, 0)
    if text[i] != "{":
        raise ValueError("not an object")
    i += 1
    while True:
        i = _skip_space(text, i)
        if text[i] == "}":
            return None
        name, i = _DECODER.raw_decode(text, i)
        i = _skip_space(text, i)
        if text[i] != ":":
            raise ValueError("no ':' after a key")
        i = _skip_space(text, i + 1)
        value, i = _DECODER.raw_decode(text, i)
        if name == key:
            return value
        i = _skip_space(text, i)
        if text[i] == ",":
            i += 1


def _top_level(path: Path, key: str) -> Any:
    """A top-level value of session.json, read from its start up to that key (session.json
    puts the arms before the samples and logs); None if it cannot be read within
    ARMS_READ_LIMIT."""
    want = ARMS_FIRST_READ
    try:
        with open_regular(path) as f:
            size = os.fstat(f.fileno()).st_size
            data = b""
            while True:
                data += f.read(want - len(data))
                try:
                    return _value_in(data.decode("utf-8", errors="replace"), key)
                except (ValueError, IndexError):
                    if len(data) >= size or want >= ARMS_READ_LIMIT:
                        return None
                    want = min(want * 2, ARMS_READ_LIMIT)
                except RecursionError:
                    return None
    except OSError:
        return None


def _x(value: float) -> str:
    return units.ratio(value)


def arms_of(value: Any) -> tuple[Arm, ...]:
    """session.json's arms (read up to them, as raw JSON) as the model's typed records."""
    raw = [a for a in value if isinstance(a, Mapping)] if isinstance(value, list) else []
    return tuple(Arm.of(a, False, None) for a in raw)


def speedups(arms: Sequence[Arm]) -> tuple[str, str]:
    """(the best compiled arm's settled speedup over the baseline, with its arm and batch size;
    every compiled arm's, a line each), from session.json's arms; ('', '') if none was
    measured, "not settled" where none is settled (the model's `Speedup.settled`)."""
    best: tuple[float, str] | None = None
    lines = []
    for arm in arms:
        if arm.backend == "eager":
            continue
        measured = []
        for row in arm.rows:
            if row.control_of:
                continue  # an A/A control's row: its twin's speed, not compile's
            speedup = row.speedup
            if speedup is not None and speedup.value > 0:
                where = f"bs {row.batch_size}"
                if not speedup.settled:  # the one rule: no figure to quote, never "best"
                    measured.append(f"{where} {NOT_SETTLED}")
                    continue
                measured.append(f"{where} {_x(speedup.value)}")
                if best is None or speedup.value > best[0]:
                    best = (speedup.value, f"{_x(speedup.value)} {arm.name} {where}")
        if measured:
            lines.append(f"{arm.name}: {', '.join(measured)}")
    return (best[1] if best else NOT_SETTLED if lines else "", "\n".join(lines))


def _is_time(value: object) -> TypeGuard[float]:
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
