"""Where things live: sessions ($TCPROF_HOME, else the per-user data folder) and the files the
program ships with (the top-level `resources` package)."""

from __future__ import annotations

import importlib.resources
import os
import time
from pathlib import Path

RESOURCE_PACKAGE = "resources"


def resource_path(*parts: str) -> Path:
    """A file or folder shipped in the `resources` package, as a path on disk.

    Found by the import system rather than from this file's location, so a checkout, an editable
    install and a wheel all resolve it; a path on disk because workers import example models by
    path."""
    found = importlib.resources.files(RESOURCE_PACKAGE)
    for part in parts:
        found = found.joinpath(part)
    if not isinstance(found, Path):
        raise RuntimeError(
            f"tcprof's {RESOURCE_PACKAGE!r} package is not on disk ({found!r}); "
            "install tcprof as files (pip install), not inside a zip"
        )
    return found


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


def new_session_dir(label: str = "") -> Path:
    stamp = time.strftime("%Y%m%d-%H%M%S")
    safe = "".join(c if c.isalnum() or c in "-_" else "-" for c in label)[:40]
    base = sessions_dir() / (f"{stamp}-{safe}" if safe else stamp)
    path, n = base, 1
    while path.exists():
        n += 1
        path = Path(f"{base}-{n}")
    path.mkdir(parents=True)
    return path
