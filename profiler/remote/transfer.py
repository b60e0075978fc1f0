"""Which local folders a remote run reaches, how their paths read on the other side, and which
of the model's files travel.

A remote worker sees four roots under the agent's private folder: `model` (the model file's
folder), `weights` (the --weights file's folder), `session` (the session folder: traces, weights,
memory snapshots, compile artefacts) and `cache` (the run's compile caches). Every path of a
command that lies under a root is rewritten to the placeholder form before it leaves, and every
placeholder that comes back (an artefact's path, a traceback) is rewritten to the local folder.

The model's Python files: the `.py` files beside the model file and those of the packages
(folders with `__init__.py`) beside it, recursively, at most MAX_MODEL_FILES files and
MAX_MODEL_BYTES in all. That is what `import x` finds beside a script, without following
imports (which a dynamic import would defeat); a larger folder is an error that says so.
"""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import Any

from tcprof.profiler.remote.frames import PLACEHOLDER

MAX_MODEL_FILES = 500
MAX_MODEL_BYTES = 20 << 20
SKIPPED_DIRS = {"__pycache__", "node_modules", "site-packages"}
_PLACED = re.compile(re.escape(PLACEHOLDER) + r"/(\w+)")


class TooManyFiles(Exception):
    """The model's folder holds more Python than a run should carry."""


class PathMap:
    """Local folders <-> their placeholder names (the longest folder wins where they nest)."""

    def __init__(self, roots: dict[str, str | None]) -> None:
        self.roots = {name: os.path.abspath(d) for name, d in roots.items() if d}
        self._by_length = sorted(self.roots.items(), key=lambda item: -len(item[1]))

    def to_remote(self, value: Any) -> Any:
        """`value` (a command, an environment) with every local path under a root replaced."""
        if isinstance(value, str):
            return self._remote_path(value)
        if isinstance(value, dict):
            return {k: self.to_remote(v) for k, v in value.items()}
        if isinstance(value, list):
            return [self.to_remote(v) for v in value]
        return value

    def _remote_path(self, text: str) -> str:
        if not os.path.isabs(text):
            return text
        for name, folder in self._by_length:
            if text == folder or text.startswith(folder + os.sep):
                rest = text[len(folder) :].replace(os.sep, "/")
                return f"{PLACEHOLDER}/{name}{rest}"
        return text

    def to_local(self, value: Any) -> Any:
        """`value` (an event) with every placeholder path replaced by the local folder."""
        if isinstance(value, str):
            if PLACEHOLDER not in value:
                return value
            return _PLACED.sub(lambda m: self.roots.get(m.group(1), m.group(0)), value)
        if isinstance(value, dict):
            return {k: self.to_local(v) for k, v in value.items()}
        if isinstance(value, list):
            return [self.to_local(v) for v in value]
        return value

    def local_files(self, value: Any) -> list[tuple[str, Path]]:
        """The existing local files a command names under a root, as (remote name, path)."""
        found: list[tuple[str, Path]] = []
        if isinstance(value, str) and os.path.isabs(value):
            remote = self._remote_path(value)
            if remote != value and os.path.isfile(value):
                found.append((remote[len(PLACEHOLDER) + 1 :], Path(value)))
        elif isinstance(value, dict):
            for v in value.values():
                found += self.local_files(v)
        elif isinstance(value, list):
            for v in value:
                found += self.local_files(v)
        return found


def model_files(model_path: str) -> list[tuple[str, Path]]:
    """The model's files as (path relative to its folder, local path); TooManyFiles past the
    bounds."""
    folder = Path(model_path).resolve().parent
    found: list[tuple[str, Path]] = []
    total = 0
    for dirpath, dirs, files in os.walk(folder):
        here = Path(dirpath)
        dirs[:] = sorted(
            d
            for d in dirs
            if not d.startswith(".")
            and d not in SKIPPED_DIRS
            and (here / d / "__init__.py").is_file()
        )
        for name in sorted(files):
            if not name.endswith(".py"):
                continue
            path = here / name
            total += path.stat().st_size
            found.append((path.relative_to(folder).as_posix(), path))
            if len(found) > MAX_MODEL_FILES or total > MAX_MODEL_BYTES:
                raise TooManyFiles(
                    f"the model's folder {folder} holds more than {MAX_MODEL_FILES} Python "
                    f"files or {MAX_MODEL_BYTES >> 20} MB of them, which a remote run sends "
                    "each time: move the model into a smaller folder"
                )
    return found
