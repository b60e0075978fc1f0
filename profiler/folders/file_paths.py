"""Artefact paths in session.json, stored relative to the session folder.

A run records absolute paths (the worker writes its traces, weights and cache artefacts under the
session folder). Written as they are, a session that is moved, renamed or zipped and unzipped
would point at files that are no longer there. So the writer stores every path that lies inside
the folder relative to it, and the reader joins it back onto the folder the session was loaded
from. Paths outside the folder (the model file, a temporary compile cache) stay absolute.

Sessions written before this rule hold absolute paths: one that lies under the folder the run
recorded (`config.artifacts_dir`) is looked for under the folder it is loaded from, and used
there when it exists, so a moved old session keeps working too.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

# Where session.json holds paths of files on disk: "*" walks every item of a list.
PATH_LOCATIONS: tuple[tuple[str, ...], ...] = (
    ("config", "artifacts_dir"),
    ("config", "source", "path"),
    ("arms", "*", "artifacts", "*", "path"),
    ("arms", "*", "cache_events", "*", "path"),
    ("arms", "*", "results", "*", "profile", "path"),
)


def portable_paths(session: dict[str, Any], folder: str | Path) -> dict[str, Any]:
    """A copy of the session dict whose paths inside `folder` are relative to it (POSIX)."""
    base = _absolute(folder)
    return _map_paths(session, lambda p: _relative_to(p, base))


def resolved_paths(session: dict[str, Any], folder: str | Path) -> dict[str, Any]:
    """A copy of the session dict whose paths are absolute again, found under `folder`."""
    base = _absolute(folder)
    recorded = (session.get("config") or {}).get("artifacts_dir")
    old_base = Path(recorded) if isinstance(recorded, str) and os.path.isabs(recorded) else None
    return _map_paths(session, lambda p: _resolve(p, base, old_base))


def _absolute(folder: str | Path) -> Path:
    return Path(os.path.abspath(folder))


def _relative_to(path: str, base: Path) -> str:
    if not os.path.isabs(path):
        return path  # already relative (written by this rule)
    for candidate, root in ((Path(os.path.abspath(path)), base), _both_resolved(path, base)):
        if candidate.is_relative_to(root):
            return candidate.relative_to(root).as_posix() or "."
    return path


def _both_resolved(path: str, base: Path) -> tuple[Path, Path]:
    """Symbolic links (/tmp on macOS) can hide that a path lies inside the folder."""
    try:
        return Path(path).resolve(), base.resolve()
    except OSError:
        return Path(path), base


def _resolve(path: str, base: Path, old_base: Path | None) -> str:
    if not os.path.isabs(path):
        return str(base) if path == "." else str(base / path)
    if old_base is not None and Path(path).is_relative_to(old_base):
        moved = base / Path(path).relative_to(old_base)
        if moved.exists():
            return str(moved)
    return path


def _map_paths(session: dict[str, Any], change: Callable[[str], str]) -> dict[str, Any]:
    out = session
    for location in PATH_LOCATIONS:
        out = _map_at(out, location, change)
    return out


def _map_at(value: Any, location: tuple[str, ...], change: Callable[[str], str]) -> Any:
    """`value` with `change` applied at `location`; containers on the way are copied, the rest
    (samples, logs: the bulk of a session) is shared, never copied."""
    if not location:
        return change(value) if isinstance(value, str) and value else value
    key, rest = location[0], location[1:]
    if key == "*":
        return [_map_at(v, rest, change) for v in value] if isinstance(value, list) else value
    if not isinstance(value, dict) or key not in value:
        return value
    return {**value, key: _map_at(value[key], rest, change)}
