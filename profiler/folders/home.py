"""The home folder: where sessions live ($TCPROF_HOME, else the per-user data folder), how a new
session's folder is named, and whether a folder can be written. (The files the program ships
with are found by config/resources.py.)"""

from __future__ import annotations

import os
import platform
import tempfile
import time
from pathlib import Path


def tcprof_home() -> Path:
    env = os.environ.get("TCPROF_HOME")
    if env:
        return Path(env).expanduser()
    base = os.environ.get("XDG_DATA_HOME") or os.path.join(
        os.path.expanduser("~"), ".local", "share"
    )
    return Path(base) / "tcprof"


def sessions_dir() -> Path:
    return tcprof_home() / "sessions"


def cpu_check_dir() -> Path:
    """Where inductor's once-per-machine CPU check keeps its libraries for every run on this
    machine (worker/cpu_check.py): by host, since a home folder can be shared between hosts."""
    host = "".join(c if c.isalnum() or c in "-_." else "-" for c in platform.node()) or "host"
    return tcprof_home() / "inductor-cpu-check" / host


class StorageError(OSError):
    """A folder sessions cannot be written into (the message says why, in one line)."""


def unwritable_reason(folder: str | Path) -> str | None:
    """Why files cannot be written into `folder` (made when missing), or None.

    Tried, not guessed from permission bits: root passes every permission check, a read-only
    mount or a file standing where a folder should be does not."""
    folder = Path(folder)
    blocker = next((p for p in (folder, *folder.parents) if p.exists() and not p.is_dir()), None)
    if blocker is not None:
        return f"{blocker} is a file, not a folder"
    try:
        folder.mkdir(parents=True, exist_ok=True)
        with tempfile.TemporaryFile(dir=folder):
            pass
    except OSError as exc:
        return f"cannot write in {folder} ({exc.strerror or exc})"
    return None


def check_writable(folder: str | Path, what: str = "sessions") -> Path:
    """`folder`, made when missing; StorageError when nothing can be written there."""
    reason = unwritable_reason(folder)
    if reason is None:
        return Path(folder)
    hint = " (set TCPROF_HOME to a folder you can write to)" if what == "sessions" else ""
    raise StorageError(f"cannot save {what} in {folder}: {reason}{hint}")


def session_dir_name(label: str = "", now: float | None = None) -> str:
    """'20260101-120000-model': when the run started and what it ran."""
    stamp = time.strftime("%Y%m%d-%H%M%S", time.localtime(now))
    safe = "".join(c if c.isalnum() or c in "-_" else "-" for c in label)[:40]
    return f"{stamp}-{safe}" if safe else stamp


def new_session_dir(label: str = "", now: float | None = None) -> Path:
    """A new, empty session folder. Two runs started in the same second with the same label
    (two windows, a script) get two folders: each name is taken by creating it, never by
    first looking whether it exists."""
    root = check_writable(sessions_dir())
    base = session_dir_name(label, now)
    for n in range(1, 10_000):
        path = root / (base if n == 1 else f"{base}-{n}")
        try:
            path.mkdir()
        except FileExistsError:
            continue
        except OSError as exc:
            raise StorageError(f"cannot create a session folder in {root}: {exc.strerror}") from exc
        return path
    raise StorageError(f"cannot create a session folder in {root}: every name for {base} is taken")
