"""The files a script writes (checkpoints, logs, data it generates), listed in the session so
the user is not surprised: seen by an audit hook on `open` (Python's `sys.addaudithook`) while
the script runs, and by `torch.save` (which writes through C++, unaudited; script_hooks.py
reports its path). The compiler's own files are left out by where they live, whatever their
names: inductor's cache (TORCHINDUCTOR_CACHE_DIR, else <tmp>/torchinductor_<user>, as
torch._inductor.runtime.cache_dir_utils places it), Triton's (TRITON_CACHE_DIR, ~/.triton),
TorchDynamo's debug folders (torch_compile_debug), and tempfile's own folders and files in the
temporary folder (<tmp>/tmpXXXXXXXX: inductor preprocesses its precompiled header in one);
the session's own folder too."""

from __future__ import annotations

import os
import re
import sys
import tempfile
from typing import Any

_WRITE_FLAGS = os.O_WRONLY | os.O_RDWR | os.O_CREAT | os.O_APPEND | os.O_TRUNC
_SYSTEM = ("/dev/", "/proc/", "/sys/")
# tempfile's names: mkdtemp / TemporaryDirectory / mkstemp's "tmp" and 8 of its characters
_TEMPFILE_NAME = re.compile(r"tmp[a-z0-9_]{8}")
_DEBUG_DIR = "torch_compile_debug"  # TorchDynamo's debug_dir_root, wherever it is rooted


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
        if not name.startswith(_Audit.skip) and not _scratch(name) and not _compilers(name):
            _Audit.written[name] = None
    except Exception:  # never let the audit break the user's open()
        return


def note(path: Any) -> None:
    """A file written without Python's open() (torch.save writes through C++)."""
    if _Audit.active and isinstance(path, (str, bytes, os.PathLike)):
        _hook("open", (path, "wb", 0))


def _scratch(name: str) -> bool:
    """A file of tempfile's in the temporary folder: one of its tmpXXXXXXXX files, or anything
    inside one of its tmpXXXXXXXX folders (where inductor writes header.hpp)."""
    if not name.startswith(_Audit.tmp + os.sep):
        return False
    first, _, below = name[len(_Audit.tmp) + 1 :].partition(os.sep)
    return _TEMPFILE_NAME.fullmatch(first) is not None or (not below and first.startswith("tmp"))


def _compilers(name: str) -> bool:
    """A file in the compiler's own folders as they are now: inductor sets its cache folder in
    the environment at its first use (cache_dir_utils.cache_dir), after `begin`."""
    for var in ("TORCHINDUCTOR_CACHE_DIR", "TRITON_CACHE_DIR"):
        folder = os.environ.get(var)
        if folder and name.startswith(os.path.abspath(folder) + os.sep):
            return True
    return (os.sep + _DEBUG_DIR + os.sep) in name


def begin(skip_dirs: list[str | None]) -> None:
    """Start listing the files opened for writing, outside the given folders."""
    if not _Audit.installed:
        sys.addaudithook(_hook)
        _Audit.installed = True
    tmp = _Audit.tmp = tempfile.gettempdir()
    torch_tmp = os.path.join(tmp, "torchinductor_")  # inductor's default cache, per user
    triton_home = os.path.join(os.environ.get("TRITON_HOME") or os.path.expanduser("~"), ".triton")
    folders = [os.environ.get("TORCHINDUCTOR_CACHE_DIR"), os.environ.get("TRITON_CACHE_DIR")]
    folders += [triton_home, os.path.join(tmp, "tcprof-"), *skip_dirs]
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
