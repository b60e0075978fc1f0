"""The files of a session folder: their names, how they are read and how they are written.

A run appends every event to events.jsonl as it arrives, and writes session.json (the engine's
format, docs/session-format.md) and steps.csv when it ends; `tcprof report` and the window's
Export add report.html, report.md and reproduce.py. The GUI, the CLI, the reports, recovery and
compare all go through this module, so each file has one name, one reader and one writer.

Paths in session.json are stored relative to the session folder (profiler/folders/file_paths.py):
`load_session` hands out absolute ones, found under the folder it read the session from.

A session file may come from anyone, so reading is bounded and checked: session.json up to
MAX_SESSION_BYTES, parsed with a nesting limit (profiler/protocol/safe_json.py) and checked against the
shapes its readers rely on (profiler/protocol/session_schema.py); an events.jsonl line is skipped when it
is too long or its fields have the wrong types. Every problem is one SessionLoadError line.
Qt-free, and light to import: the numpy-backed SessionFold is loaded only to fold an events.jsonl.
"""

from __future__ import annotations

import json
import os
import stat
import tempfile
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, BinaryIO

from tcprof.profiler.folders.file_paths import portable_paths, resolved_paths
from tcprof.profiler.folders.outputs import EventLog, atomic_write_text
from tcprof.profiler.folders.replay import synthesise_events
from tcprof.profiler.folders.steps_csv import steps_csv_text
from tcprof.profiler.model.series import series_of
from tcprof.profiler.protocol import safe_json
from tcprof.profiler.protocol.event_schema import event_problem
from tcprof.profiler.protocol.session_schema import session_problem
from tcprof.profiler.protocol.types import Event
from tcprof.profiler.protocol.wire import jsonsafe

SESSION_JSON = "session.json"
EVENTS_JSONL = "events.jsonl"
STEPS_CSV = "steps.csv"
REPORT_HTML = "report.html"
REPORT_MD = "report.md"
REPRODUCER = "reproduce.py"

MAX_SESSION_BYTES = 256 << 20  # a session.json of millions of steps is tens of MB
MAX_EVENT_LINE_BYTES = 8 << 20  # a steps event is a few kB, a long printed line a few MB
MAX_REPLAYED_EVENTS_BYTES = 512 << 20  # larger logs are not replayed: samples are enough


class SessionLoadError(ValueError):
    """The file is not a session tcprof can open (the message says why, in one line)."""


@dataclass
class LoadedSession:
    session: dict[str, Any]  # the session.json dict, samples included, paths absolute
    events: list[Event]  # what the plots and logs are fed (recorded, else synthesised)
    folder: Path  # where it lives: its paths are resolved here, exports default here
    source: Path  # the file that was read


# -- reading ------------------------------------------------------------------------------------
def iter_events(path: str | Path, skipped: list[str] | None = None) -> Iterator[Event]:
    """Every event of an events.jsonl, in order. A line that is not JSON (a crash tore the last
    one) ends them; a line too long, or an event whose fields its readers could not use, is
    left out, and why is appended to `skipped`."""
    with open_regular(path) as f:
        number = 0
        while line := f.readline(MAX_EVENT_LINE_BYTES + 1):
            number += 1
            if len(line) > MAX_EVENT_LINE_BYTES:
                while line and not line.endswith(b"\n"):  # the rest of the line, in chunks
                    line = f.readline(MAX_EVENT_LINE_BYTES)
                _note(skipped, f"line {number} is longer than {MAX_EVENT_LINE_BYTES >> 20} MB")
                continue
            if not line.strip():
                continue
            try:
                event = safe_json.loads(line.decode("utf-8"))
            except ValueError:  # UnicodeDecodeError and JsonProblem are ValueErrors
                return
            problem = event_problem(event)
            if problem:
                _note(skipped, f"line {number}: {problem}")
                continue
            yield event


def _note(skipped: list[str] | None, why: str) -> None:
    if skipped is not None:
        skipped.append(why)


def read_events(path: str | Path) -> list[Event]:
    return list(iter_events(path))


def session_source(path: str | Path) -> Path:
    """The file to read for a folder (session.json, else events.jsonl) or a file itself."""
    path = Path(path)
    if path.is_dir():
        path = path / SESSION_JSON if os.path.lexists(path / SESSION_JSON) else path / EVENTS_JSONL
    if not os.path.lexists(path):
        raise SessionLoadError(f"session file not found: {path}")
    if not path.is_file():
        raise SessionLoadError(f"{path} is not a regular file")
    return path


def load_session(path: str | Path, with_events: bool = True) -> LoadedSession:
    """Open a session folder, a session.json or an events.jsonl.

    With `with_events`, also the events the plots need: events.jsonl when it holds steps, else
    events rebuilt from session.json's samples. SessionLoadError (one line) for anything that
    is not a session the readers can use."""
    source = session_source(path)
    folder = source.parent.absolute()
    session = _read_session_dict(source)
    try:
        session = resolved_paths(session, folder)
        if "series" not in session:  # a session before schema 4: its key as it would be now
            session["series"] = series_of(session)
        events: list[Event] = []
        if with_events:
            events = _recorded_events(source)
            if not any(e.get("type") == "steps" for e in events):
                events = synthesise_events(session)
    except (KeyError, TypeError, ValueError, AttributeError, IndexError) as exc:
        raise SessionLoadError(f"cannot read {source}: {type(exc).__name__}: {exc}") from exc
    return LoadedSession(session, events, folder, source)


def read_session(path: str | Path) -> dict[str, Any]:
    """The session dict alone (for reports and compare), paths resolved."""
    return load_session(path, with_events=False).session


def _read_session_dict(source: Path) -> dict[str, Any]:
    skipped: list[str] = []
    try:
        if source.suffix == ".jsonl":
            session = _fold_events(source, skipped)
        else:
            session = _read_json(source)
    except safe_json.JsonProblem as exc:
        raise SessionLoadError(f"{source} {exc}") from exc
    except (OSError, ValueError) as exc:  # UnicodeDecodeError is a ValueError
        raise SessionLoadError(f"cannot read {source}: {_reason(exc)}") from exc
    if not isinstance(session, dict) or not isinstance(session.get("arms"), list):
        raise SessionLoadError(f"{source} is not a tcprof session (no 'arms' list)")
    if source.suffix == ".jsonl" and not session.get("config"):
        why = f": {skipped[0]}" if skipped else ""
        raise SessionLoadError(f"{source} is not a tcprof session (no run_start event{why})")
    problem = session_problem(session)
    if problem:
        raise SessionLoadError(f"{source}: {problem}")
    return session


def _reason(exc: BaseException) -> str:
    return (exc.strerror if isinstance(exc, OSError) else None) or str(exc)


def _fold_events(source: Path, skipped: list[str]) -> dict[str, Any]:
    from tcprof.profiler.session.fold import SessionFold  # numpy-backed: not at start-up

    try:
        return SessionFold.from_events(iter_events(source, skipped)).to_dict()
    except (KeyError, TypeError, AttributeError, IndexError) as exc:  # a reader the checks missed
        raise ValueError(f"{type(exc).__name__}: {exc}") from exc


def _read_json(source: Path) -> Any:
    """session.json's contents: not too large, parsed within limits."""
    with open_regular(source) as f:
        size = os.fstat(f.fileno()).st_size
        if size > MAX_SESSION_BYTES:
            raise OSError(
                f"{source.name} is {size >> 20} MB, more than the {MAX_SESSION_BYTES >> 20} MB "
                "tcprof opens"
            )
        data = f.read(MAX_SESSION_BYTES + 1)
    return safe_json.loads(data.decode("utf-8"))


def open_regular(path: str | Path) -> BinaryIO:
    """A regular file opened for reading; OSError for anything else. Opened without blocking
    and checked once open, so a FIFO put where a session file was expected never hangs."""
    fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_BINARY", 0))
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise OSError(f"{Path(path).name} is not a regular file")
        return os.fdopen(fd, "rb")
    except BaseException:
        os.close(fd)
        raise


def _recorded_events(source: Path) -> list[Event]:
    events_file = source if source.suffix == ".jsonl" else source.parent / EVENTS_JSONL
    try:
        if not events_file.is_file() or events_file.stat().st_size > MAX_REPLAYED_EVENTS_BYTES:
            return []  # the plots are then rebuilt from session.json
        return read_events(events_file)
    except (OSError, UnicodeDecodeError):
        return []


def clear_earlier_run(folder: str | Path) -> None:
    """Remove what an earlier run wrote into folder (its session files and reports), so a run
    replacing it (--force) never leaves the folder half one run and half the other."""
    for name in (SESSION_JSON, EVENTS_JSONL, STEPS_CSV, REPORT_HTML, REPORT_MD, REPRODUCER):
        (Path(folder) / name).unlink(missing_ok=True)


def earlier_run(folder: str | Path) -> Path | None:
    """The file an earlier run left in `folder` (its session.json or events.jsonl), if any: a
    new run there would replace it."""
    for name in (SESSION_JSON, EVENTS_JSONL):
        if os.path.lexists(Path(folder) / name):
            return Path(folder) / name
    return None


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


def save_session(session: dict[str, Any], folder: str | Path) -> tuple[Path | None, str | None]:
    """Write session.json and steps.csv into folder; when that fails (a full disk, a folder
    gone), into a new folder in the system's temporary folder, so what was measured is kept.
    Returns where they were written (None: nowhere) and, when not in `folder`, why."""
    folder = Path(folder)
    try:
        write_session_files(session, folder)
        return folder, None
    except OSError as exc:
        problem = f"could not save the session in {folder} ({_reason(exc)})"
    try:
        elsewhere = Path(tempfile.mkdtemp(prefix=f"tcprof-{folder.name}-"))
        write_session_files(session, elsewhere)
    except OSError as exc:
        return None, f"{problem}, nor in the temporary folder ({_reason(exc)})"
    return elsewhere, f"{problem}; saved it in {elsewhere} instead"


def open_event_log(
    folder: str | Path, on_failure: Callable[[Event], None] | None = None
) -> EventLog:
    """A fresh events.jsonl in folder (a previous run's, in a reused --out folder, is removed),
    appended to as events arrive. A write that fails is reported once to `on_failure` and the
    run goes on (profiler/folders/outputs.py)."""
    path = Path(folder) / EVENTS_JSONL
    try:
        path.unlink(missing_ok=True)
    except OSError:
        pass  # the log's open fails and says why
    return EventLog(path, on_failure)


SESSION_SUFFIXES = (".json", ".jsonl")


def is_saved_session(arg: str) -> bool:
    """Whether a command-line argument names a saved session: a .json or .jsonl file, or a
    folder holding session.json or events.jsonl. Only names and folder entries are looked at."""
    if arg.startswith("-"):
        return False
    if arg.endswith(SESSION_SUFFIXES):
        return True
    path = Path(arg)
    return path.is_dir() and any((path / name).is_file() for name in (SESSION_JSON, EVENTS_JSONL))
