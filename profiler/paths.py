"""Where sessions live: $TCPROF_HOME, else the per-user data folder."""

from __future__ import annotations

import os
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
