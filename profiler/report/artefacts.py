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
from pathlib import Path
from typing import Any
from urllib.parse import quote

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


def _report_folder(session_dict: dict[str, Any], folder: str | Path | None) -> Path | None:
    """Where the report lies: given, or the session's own folder as the run recorded it."""
    if folder is not None:
        return Path(os.path.abspath(folder))
    recorded = (session_dict.get("config") or {}).get("artifacts_dir")
    return Path(recorded) if isinstance(recorded, str) and os.path.isabs(recorded) else None


def artefacts(
    session_dict: dict[str, Any], folder: str | Path | None = None
) -> list[dict[str, Any]]:
    """One entry per file: arm, kind, what (words), batch size, path, href (None: missing)."""
    base = _report_folder(session_dict, folder)
    found: dict[str, dict[str, Any]] = {}
    for arm in session_dict.get("arms") or []:
        entries = [dict(a) for a in arm.get("artifacts") or [] if isinstance(a, dict)]
        for r in arm.get("results") or []:
            prof = r.get("profile") if isinstance(r.get("profile"), dict) else {}
            if prof.get("path"):
                entries.append(
                    {
                        "kind": "torch_profiler_trace",
                        "path": prof["path"],
                        "batch_size": r.get("batch_size"),
                    }
                )
        for entry in entries:
            path = entry.get("path")
            if not isinstance(path, str) or not path or path in found:
                continue
            kind = str(entry.get("kind") or "file")
            found[path] = {
                "arm": arm.get("name"),
                "kind": kind,
                "what": KIND_TEXT.get(kind, kind.replace("_", " ")),
                "batch_size": entry.get("batch_size"),
                "path": path,
                "href": _href(path, base),
            }
    arm_order = [a.get("name") for a in session_dict.get("arms") or []]
    return sorted(  # by kind, then in the arms' order, then by batch size
        found.values(),
        key=lambda a: (
            ORDER.index(a["kind"]) if a["kind"] in ORDER else len(ORDER),
            arm_order.index(a["arm"]),
            a["batch_size"] if isinstance(a["batch_size"], int) else -1,
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


def html_section(session_dict: dict[str, Any], esc: Esc, folder: str | Path | None) -> str:
    found = artefacts(session_dict, folder)
    if not found:
        return ""
    rows = []
    for a in found:
        name = esc(_name(a["path"]))
        file = (
            f'<a href="{esc(a["href"])}" class="mono">{name}</a>'
            if a["href"]
            else f'<span class="mono bad" title="{esc(a["path"])}">{name}: missing</span>'
        )
        bs = "" if a["batch_size"] is None else esc(a["batch_size"])
        rows.append(
            f"<tr><td>{esc(a['arm'])}</td><td>{esc(a['what'])}</td>"
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
    session_dict: dict[str, Any], md_text: Callable[[Any], str], folder: str | Path | None
) -> list[str]:
    found = artefacts(session_dict, folder)
    if not found:
        return []
    out = ["**Files**", ""]
    for a in found:
        bs = f" bs={md_text(a['batch_size'])}" if a["batch_size"] is not None else ""
        label = f"{md_text(a['arm'])}{bs}: {md_text(a['what'])}"
        name = md_text(_name(a["path"]))
        out.append(
            f"- {label}: [{name}](<{a['href']}>)" if a["href"] else f"- {label}: {name} (missing)"
        )
    return [*out, ""]
