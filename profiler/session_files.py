"""The files of a session folder: their names, how they are read and how they are written.

A run appends every event to events.jsonl as it arrives, and writes session.json (the engine's
format, docs/session-format.md) and steps.csv when it ends; `tcprof report` and the window's
Export add report.html, report.md and reproduce.py. The GUI, the CLI, the reports, recovery and
compare all go through this module, so each file has one name, one reader and one writer.

Paths in session.json are stored relative to the session folder (profiler/session_paths.py):
`load_session` hands out absolute ones, found under the folder it read the session from.
Qt-free, and light to import: the numpy-backed Session is loaded only to fold an events.jsonl.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from profiler.events import decode, jsonsafe
from profiler.outputs import EventLog, atomic_write_text
from profiler.session_paths import portable_paths, resolved_paths
from profiler.session_replay import synthesise_events
from profiler.steps_csv import steps_csv_text

SESSION_JSON = "session.json"
EVENTS_JSONL = "events.jsonl"
STEPS_CSV = "steps.csv"
REPORT_HTML = "report.html"
REPORT_MD = "report.md"
REPRODUCER = "reproduce.py"

Event = dict[str, Any]


class SessionLoadError(ValueError):
    """The file is not a session tcprof can open (the message says why, in one line)."""


@dataclass
class LoadedSession:
    session: dict[str, Any]  # the session.json dict, samples included, paths absolute
    events: list[Event]  # what the plots and logs are fed (recorded, else synthesised)
    folder: Path  # where it lives: its paths are resolved here, exports default here
    source: Path  # the file that was read


# -- reading ------------------------------------------------------------------------------------
def iter_events(path: str | Path) -> Iterator[Event]:
    """Every event of an events.jsonl, in order; a torn last line (a crash) ends them."""
    with open(path, encoding="utf-8") as f:
        for line in f:
            if not line.strip():
                continue
            try:
                event = decode(line)
            except ValueError:
                return
            yield event


def read_events(path: str | Path) -> list[Event]:
    return list(iter_events(path))


def session_source(path: str | Path) -> Path:
    """The file to read for a folder (session.json, else events.jsonl) or a file itself."""
    path = Path(path)
    if path.is_dir():
        path = path / SESSION_JSON if (path / SESSION_JSON).is_file() else path / EVENTS_JSONL
    if not path.is_file():
        raise SessionLoadError(f"session file not found: {path}")
    return path


def load_session(path: str | Path, with_events: bool = True) -> LoadedSession:
    """Open a session folder, a session.json or an events.jsonl.

    With `with_events`, also the events the plots need: events.jsonl when it holds steps, else
    events rebuilt from session.json's samples."""
    source = session_source(path)
    folder = source.parent.absolute()
    session = resolved_paths(_read_session_dict(source), folder)
    events: list[Event] = []
    if with_events:
        events = _recorded_events(source)
        if not any(e.get("type") == "steps" for e in events):
            events = synthesise_events(session)
    return LoadedSession(session, events, folder, source)


def read_session(path: str | Path) -> dict[str, Any]:
    """The session dict alone (for reports and compare), paths resolved."""
    return load_session(path, with_events=False).session


def _read_session_dict(source: Path) -> dict[str, Any]:
    try:
        session = _fold_events(source) if source.suffix == ".jsonl" else _read_json(source)
    except json.JSONDecodeError as exc:
        raise SessionLoadError(
            f"{source} is not valid JSON (line {exc.lineno}, column {exc.colno})"
        ) from exc
    except (OSError, ValueError) as exc:  # UnicodeDecodeError is a ValueError
        raise SessionLoadError(f"cannot read {source}: {exc}") from exc
    if not isinstance(session, dict) or not isinstance(session.get("arms"), list):
        raise SessionLoadError(f"{source} is not a tcprof session (no 'arms' list)")
    if source.suffix == ".jsonl" and not session.get("config"):
        raise SessionLoadError(f"{source} is not a tcprof session (no run_start event)")
    return session


def _fold_events(source: Path) -> dict[str, Any]:
    from profiler.session import Session  # numpy-backed: not at start-up

    return Session.from_events(source).to_dict()


def _read_json(source: Path) -> Any:
    with open(source, encoding="utf-8") as f:
        return json.load(f)


def _recorded_events(source: Path) -> list[Event]:
    events_file = source if source.suffix == ".jsonl" else source.parent / EVENTS_JSONL
    try:
        return read_events(events_file) if events_file.is_file() else []
    except (OSError, UnicodeDecodeError):
        return []  # the plots are then rebuilt from session.json


# -- writing ------------------------------------------------------------------------------------
def session_json_text(session: dict[str, Any], folder: str | Path | None = None) -> str:
    """session.json as it is written into `folder`: strict JSON (NaN and infinity as null),
    paths inside the folder relative to it."""
    portable = portable_paths(session, folder) if folder is not None else session
    return json.dumps(jsonsafe(portable), indent=1, allow_nan=False) + "\n"


def write_session_files(session: dict[str, Any], folder: str | Path) -> list[Path]:
    """Write session.json and steps.csv into folder, each atomically; both are rendered before
    either is written."""
    folder = Path(folder)
    rendered = [
        (folder / SESSION_JSON, session_json_text(session, folder)),
        (folder / STEPS_CSV, steps_csv_text(session)),
    ]
    for path, text in rendered:
        atomic_write_text(path, text)
    return [path for path, _ in rendered]


def open_event_log(folder: str | Path) -> EventLog:
    """A fresh events.jsonl in folder (a previous run's, in a reused --out folder, is removed),
    appended to as events arrive."""
    path = Path(folder) / EVENTS_JSONL
    path.unlink(missing_ok=True)
    return EventLog(path)
