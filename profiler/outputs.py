"""How the engine writes files: atomically when finished, line by line while a run goes on.

Finished files are written atomically (a temporary file renamed into place), so a crash while
writing never leaves a half-written file where a good one was. Which files a session holds, and
what goes in them, is profiler/session_files.py's business.
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path
from typing import Any

from profiler.events import encode


def atomic_write_text(path: str | Path, text: str) -> None:
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)
    try:
        os.fchmod(fd, 0o644)  # mkstemp makes 0600; reports are meant to be shared
        with os.fdopen(fd, "w", encoding="utf-8", newline="") as f:
            f.write(text)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise


class EventLog:
    """A listener that appends every event to a file (events.jsonl) as it arrives."""

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._file = open(self.path, "ab")

    def __call__(self, event: dict[str, Any]) -> None:
        if self._file.closed:
            return
        self._file.write(encode(event))
        self._file.flush()

    def close(self) -> None:
        self._file.close()
