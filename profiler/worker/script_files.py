"""The files a script writes (checkpoints, logs, data it generates), listed in the session so
the user is not surprised: seen by an audit hook on `open` (Python's `sys.addaudithook`) while
the script runs, and by `torch.save` (which writes through C++, unaudited; script_hooks.py
reports its path). Compile caches, temporary files and the session's own folder are left out."""

from __future__ import annotations

import os
import sys
import tempfile
from typing import Any

_WRITE_FLAGS = os.O_WRONLY | os.O_RDWR | os.O_CREAT | os.O_APPEND | os.O_TRUNC
_SYSTEM = ("/dev/", "/proc/", "/sys/")


class _Audit:
    active = False
    installed = False
    written: dict[str, None] = {}
    skip: tuple[str, ...] = ()
    tmp = ""


def _hook(event: str, args: tuple[Any, ...]) -> None:
    if event != "open" or not _Audit.active:
        return
    try:
        path, mode, flags = args
        writes = (
            any(c in mode for c in "wax+") if isinstance(mode, str) else bool(flags & _WRITE_FLAGS)
        )
        if not writes or isinstance(path, int):
            return
        name = os.path.abspath(os.fsdecode(path))
        if not name.startswith(_Audit.skip) and not _scratch(name):
            _Audit.written[name] = None
    except Exception:  # never let the audit break the user's open()
        return


def note(path: Any) -> None:
    """A file written without Python's open() (torch.save writes through C++)."""
    if _Audit.active and isinstance(path, (str, bytes, os.PathLike)):
        _hook("open", (path, "wb", 0))


def _scratch(name: str) -> bool:
    """A temporary file straight in the temporary folder (tempfile's tmpXXXX names)."""
    folder, base = os.path.split(name)
    return folder == _Audit.tmp and base.startswith("tmp")


def begin(skip_dirs: list[str | None]) -> None:
    """Start listing the files opened for writing, outside the given folders."""
    if not _Audit.installed:
        sys.addaudithook(_hook)
        _Audit.installed = True
    tmp = _Audit.tmp = tempfile.gettempdir()
    torch_tmp = os.path.join(tmp, "torchinductor_")  # inductor's default cache, per user
    folders = [os.environ.get("TORCHINDUCTOR_CACHE_DIR"), os.environ.get("TRITON_CACHE_DIR")]
    folders += [os.path.join(tmp, "tcprof-"), *skip_dirs]
    prefixes = [os.path.abspath(f) + os.sep for f in folders if f and not f.endswith("-")]
    prefixes += [f for f in folders if f and f.endswith("-")]
    _Audit.skip = (*_SYSTEM, torch_tmp, *prefixes)
    _Audit.written = {}
    _Audit.active = True


def end() -> list[dict[str, Any]]:
    """Stop listing; the files written, each with its size now (None: gone again)."""
    _Audit.active = False
    out = []
    for name in _Audit.written:
        try:
            size: int | None = os.path.getsize(name)
        except OSError:
            size = None
        out.append({"path": name, "bytes": size})
    return out
