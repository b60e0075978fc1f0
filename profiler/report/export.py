"""Write the reports of a session (its model, or session.json's dict) to a folder, each file
atomically.

Every file is rendered in memory first and then renamed into place, so an error (or a crash)
while exporting leaves the previous good file where it was, never a half-written one. session.json
and steps.csv are rendered by profiler/folders/files.py, the engine's own writer."""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
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
from tcprof.profiler.model.json_values import thaw
from tcprof.profiler.model.session import SessionModel
from tcprof.profiler.report.html import render_html
from tcprof.profiler.report.markdown import render_markdown
from tcprof.profiler.report.reproduce import render_reproducer


@dataclass(frozen=True)
class Exported:
    """A session to write: its model, which the reports read, and session.json's document as
    given, from which session.json and steps.csv are written (the file's own writer's JSON)."""

    model: SessionModel
    document: dict[str, Any]

    @classmethod
    def of(cls, session: SessionModel | Mapping[str, Any]) -> Exported:
        if isinstance(session, SessionModel):
            return cls(session, session.to_dict())
        document = session if isinstance(session, dict) else thaw(session)
        return cls(SessionModel.from_json(session), document)


# A renderer turns a session into the text of a file written into a folder (session.json
# stores its paths relative to that folder, the reports link the session's files relative to it).
Renderer = Callable[[Exported, Path], str]

# format -> (file name, renderer). "html" also writes reproduce.py (the report shows it).
FORMATS: dict[str, tuple[str, Renderer]] = {
    "html": (REPORT_HTML, lambda session, folder: render_html(session.model, folder)),
    "md": (REPORT_MD, lambda session, folder: render_markdown(session.model, folder)),
    "csv": (STEPS_CSV, lambda session, _folder: steps_csv_text(session.document)),
    "json": (SESSION_JSON, lambda session, folder: session_json_text(session.document, folder)),
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
    session: SessionModel | Mapping[str, Any],
    out_dir: str | Path,
    formats: Iterable[str] = ("html", "md", "csv", "json"),
) -> list[Path]:
    """Write the chosen reports (plus reproduce.py) into out_dir; returns the paths written.

    All files are rendered before the first one is written, so a renderer that raises leaves
    every existing file untouched."""
    chosen = parse_formats(list(formats))
    exported = Exported.of(session)
    out = Path(out_dir)
    rendered: list[tuple[Path, str]] = []
    for fmt in chosen:
        if fmt == "py":
            continue
        name, render = FORMATS[fmt]
        rendered.append((out / name, render(exported, out)))
    if exported.model.arms:
        rendered.append((out / REPRODUCER, render_reproducer(exported.model)))
    for path, text in rendered:
        atomic_write_text(path, text)
        _readable(path)
    return [p for p, _ in rendered]
