"""Which local folders a remote run reaches, how their paths read on the other side, and which
of the model's files travel.

A remote worker sees five roots under the agent's private folder: `model` (the model file's
folder, or a script's), `weights` (the --weights file's folder), `session` (the session folder:
traces, weights, memory snapshots, compile artefacts), `cache` (the run's compile caches) and
`cwd` (a script's working directory, when it is not the script's own folder). Every path of a
command that lies under a root is rewritten to the placeholder form before it leaves, and every
placeholder that comes back (an artefact's path, a traceback) is rewritten to the local folder.

The model's Python files: the `.py` files beside the model file and those of the packages
(folders with `__init__.py`) beside it, recursively, at most MAX_MODEL_FILES files and
MAX_MODEL_BYTES in all. That is what `import x` finds beside a script, without following
imports (which a dynamic import would defeat); a larger folder is an error that says so. A
script's travel by the same rules, and its working directory's too (`python -m pkg.train` finds
`pkg` there); so do the files its arguments name under either folder (`config/train_small.py`,
read by the script itself), within the same bounds.
"""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import Any

from tcprof.profiler.config import ScriptSource
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
    return folder_files(Path(model_path).resolve().parent, "the model's folder")


def folder_files(folder: Path, what: str) -> list[tuple[str, Path]]:
    """A folder's Python files and its packages', recursively, as (relative path, local path);
    TooManyFiles past the bounds (`what` names the folder in the message)."""
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
                    f"{what} {folder} holds more than {MAX_MODEL_FILES} Python "
                    f"files or {MAX_MODEL_BYTES >> 20} MB of them, which a remote run sends "
                    "each time: move the model into a smaller folder"
                )
    return found


def script_roots(script: ScriptSource) -> dict[str, str | None]:
    """The roots a script's run adds: its folder, and its working directory when another."""
    folder = os.path.dirname(os.path.abspath(script.path))
    cwd = os.path.abspath(script.cwd)
    return {"model": folder, "cwd": None if cwd == folder else cwd}


def sent_files(
    model_path: str, script: ScriptSource | None, paths: PathMap
) -> list[tuple[str, Path]]:
    """What travels before the worker starts, as (name under its root, local path): the model's
    folder's Python; for a script, its working directory's too and the files its arguments
    name under either folder."""
    sent = [(f"model/{rel}", path) for rel, path in model_files(model_path)]
    if script is None:
        return sent
    if "cwd" in paths.roots:
        cwd = Path(paths.roots["cwd"])
        sent += [(f"cwd/{rel}", p) for rel, p in folder_files(cwd, "the working directory")]
    names = {name for name, _ in sent}
    total = sum(path.stat().st_size for _, path in sent)
    for path in _named_files(script):
        for name, local in paths.local_files(str(path)):
            if name in names:
                continue
            total += local.stat().st_size
            if total > MAX_MODEL_BYTES:
                raise TooManyFiles(
                    f"the script's arguments name {local}, and with it more than "
                    f"{MAX_MODEL_BYTES >> 20} MB would travel each time: put the file on the "
                    "host and give its path there"
                )
            names.add(name)
            sent.append((name, local))
    return sent


def _named_files(script: ScriptSource) -> list[Path]:
    """The existing files the script's arguments name (an argument, or the value of a
    --key=value one), relative to its working directory."""
    found: list[Path] = []
    for arg in script.args:
        for word in (arg, arg.split("=", 1)[1] if arg.startswith("-") and "=" in arg else None):
            if not word or word.startswith("-"):
                continue
            path = Path(script.cwd, os.path.expanduser(word))
            if path.is_file() and path.absolute() not in found:
                found.append(path.absolute())
    return found
