"""The "Files" part of the reports: a link to every artefact the session wrote.

The tlparse report (`--trace`), the raw TORCH_TRACE logs, the torch.profiler Chrome traces,
CUDA memory snapshots, saved weights and the portable compile cache are linked by a path
relative to the folder the report is written into, so a session folder that is zipped and
unzipped elsewhere keeps its links. A file that is not there is listed as missing, never as a
link that leads nowhere.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import quote

from tcprof.profiler.model.arm import Arm
from tcprof.profiler.model.session import SessionModel

Esc = Callable[[Any], str]
KIND_TEXT = {
    "tlparse": "tlparse report (--trace)",
    "torch_trace": "TORCH_TRACE log",
    "torch_profiler_trace": "Chrome trace (torch.profiler)",
    "memory_snapshot": "CUDA memory snapshot",
    "weights": "trained weights",
    "compile_cache_artifacts": "portable compile cache",
}
ORDER = list(KIND_TEXT)


@dataclass(frozen=True)
class File:
    """A file the session wrote: its arm, kind and kind in words, batch size (None: the
    arm's), path as saved, and the link to it from the report (None: it is missing)."""

    arm: str
    kind: str
    what: str
    batch_size: int | None
    path: str
    href: str | None


def _report_folder(session: SessionModel, folder: str | Path | None) -> Path | None:
    """Where the report lies: given, or the session's own folder as the run recorded it."""
    if folder is not None:
        return Path(os.path.abspath(folder))
    recorded = session.options.artifacts_dir
    return Path(recorded) if recorded is not None and os.path.isabs(recorded) else None


def _written(arm: Arm) -> list[tuple[str | None, str | None, int | None]]:
    """(kind, path, batch size) of each file the arm wrote: its artefacts, then its traces."""
    files = [(a.kind, a.path, a.batch_size) for a in arm.artifacts]
    traces = [(r.batch_size, r.profile.path) for r in arm.rows if r.profile and r.profile.path]
    return files + [("torch_profiler_trace", path, bs) for bs, path in traces]


def artefacts(model: SessionModel, folder: str | Path | None = None) -> list[File]:
    """One entry per file, by kind, then in the arms' order, then by batch size."""
    base = _report_folder(model, folder)
    found: dict[str, File] = {}
    order = {arm.name: i for i, arm in reversed(list(enumerate(model.arms)))}
    for arm in model.arms:
        for kind_saved, path, batch_size in _written(arm):
            if not path or path in found:
                continue
            kind = kind_saved or "file"
            what = KIND_TEXT.get(kind, kind.replace("_", " "))
            found[path] = File(arm.name, kind, what, batch_size, path, _href(path, base))
    return sorted(
        found.values(),
        key=lambda a: (
            ORDER.index(a.kind) if a.kind in ORDER else len(ORDER),
            order[a.arm],
            a.batch_size if a.batch_size is not None else -1,
        ),
    )


def _href(path: str, base: Path | None) -> str | None:
    """The path relative to the report's folder, URL-quoted; None when the file is missing."""
    full = Path(path) if os.path.isabs(path) or base is None else base / path
    if not full.exists():
        return None
    if base is None:
        return full.as_uri()
    try:
        relative = Path(os.path.relpath(full, base)).as_posix()
    except ValueError:  # another drive (Windows): no relative path exists
        return full.as_uri()
    return quote(relative)


def _name(path: str) -> str:
    return Path(path).name if Path(path).name != "index.html" else Path(path).parent.name


def html_section(session: SessionModel, esc: Esc, folder: str | Path | None) -> str:
    found = artefacts(session, folder)
    if not found:
        return ""
    rows = []
    for a in found:
        name = esc(_name(a.path))
        file = (
            f'<a href="{esc(a.href)}" class="mono">{name}</a>'
            if a.href
            else f'<span class="mono bad" title="{esc(a.path)}">{name}: missing</span>'
        )
        bs = "" if a.batch_size is None else esc(a.batch_size)
        rows.append(
            f"<tr><td>{esc(a.arm)}</td><td>{esc(a.what)}</td>"
            f'<td class="num">{bs}</td><td>{file}</td></tr>'
        )
    return (
        '<section id="files"><h2>Files</h2><p class="note">Every file this session wrote, '
        "linked by a path relative to this report: the folder can be zipped and opened "
        "elsewhere. Chrome traces open in ui.perfetto.dev or chrome://tracing; memory "
        "snapshots in pytorch.org/memory_viz.</p>"
        '<div class="table-wrap"><table><thead><tr><th>arm</th><th>what</th>'
        '<th class="num">bs</th><th>file</th></tr></thead>'
        f"<tbody>{''.join(rows)}</tbody></table></div></section>"
    )


def markdown_lines(
    session: SessionModel, md_text: Callable[[Any], str], folder: str | Path | None
) -> list[str]:
    found = artefacts(session, folder)
    if not found:
        return []
    out = ["**Files**", ""]
    for a in found:
        bs = f" bs={md_text(a.batch_size)}" if a.batch_size is not None else ""
        label = f"{md_text(a.arm)}{bs}: {md_text(a.what)}"
        name = md_text(_name(a.path))
        out.append(f"- {label}: [{name}](<{a.href}>)" if a.href else f"- {label}: {name} (missing)")
    return [*out, ""]
