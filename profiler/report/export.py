"""Write the reports of a session dict to a folder, each file atomically.

Every file is rendered in memory first and then renamed into place, so an error (or a crash)
while exporting leaves the previous good file where it was, never a half-written one. session.json
and steps.csv are rendered by profiler/folders/files.py, the engine's own writer."""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

from tcprof.profiler.folders.files import (
    REPORT_HTML,
    REPORT_MD,
    REPRODUCER,
    SESSION_JSON,
    STEPS_CSV,
    session_json_text,
)
from tcprof.profiler.folders.outputs import atomic_write_text
from tcprof.profiler.folders.steps_csv import steps_csv_text
from tcprof.profiler.model.session import SessionModel
from tcprof.profiler.report.html import render_html
from tcprof.profiler.report.markdown import render_markdown
from tcprof.profiler.report.reproduce import render_reproducer

# A renderer turns a session dict into the text of a file written into a folder (session.json
# stores its paths relative to that folder, the reports link the session's files relative to it):
# session.json and steps.csv are written from the dict as given, the reports read its model.
Renderer = Callable[[dict[str, Any], Path], str]

# format -> (file name, renderer). "html" also writes reproduce.py (the report shows it).
FORMATS: dict[str, tuple[str, Renderer]] = {
    "html": (REPORT_HTML, lambda session, folder: render_html(SessionModel.read(session), folder)),
    "md": (REPORT_MD, lambda session, folder: render_markdown(SessionModel.read(session), folder)),
    "csv": (STEPS_CSV, lambda session, _folder: steps_csv_text(session)),
    "json": (SESSION_JSON, session_json_text),
}
REPORT_FORMATS = ("html", "md")  # what a run adds to the session files it writes itself


class UnknownFormat(ValueError):
    pass


def _readable(path: Path) -> None:
    """Reports are for sharing: rw-r--r-- (the temporary file they were renamed from is 0600)."""
    try:
        os.chmod(path, 0o644)
    except OSError:
        pass


def parse_formats(text: str | Iterable[str]) -> tuple[str, ...]:
    items = [t.strip().lower() for t in (text.split(",") if isinstance(text, str) else text)]
    items = [t for t in items if t]
    if not items:
        raise UnknownFormat(f"no format given; choose from {', '.join(FORMATS)}")
    unknown = [t for t in items if t not in FORMATS and t != "py"]
    if unknown:
        raise UnknownFormat(
            f"unknown format {unknown[0]!r}; choose from {', '.join([*FORMATS, 'py'])}"
        )
    return tuple(dict.fromkeys(items))


def export_reports(
    session_dict: dict[str, Any],
    out_dir: str | Path,
    formats: Iterable[str] = ("html", "md", "csv", "json"),
) -> list[Path]:
    """Write the chosen reports (plus reproduce.py) into out_dir; returns the paths written.

    All files are rendered before the first one is written, so a renderer that raises leaves
    every existing file untouched."""
    chosen = parse_formats(list(formats))
    out = Path(out_dir)
    rendered: list[tuple[Path, str]] = []
    for fmt in chosen:
        if fmt == "py":
            continue
        name, render = FORMATS[fmt]
        rendered.append((out / name, render(session_dict, out)))
    if session_dict.get("arms"):
        rendered.append((out / REPRODUCER, render_reproducer(SessionModel.read(session_dict))))
    for path, text in rendered:
        atomic_write_text(path, text)
        _readable(path)
    return [p for p, _ in rendered]
