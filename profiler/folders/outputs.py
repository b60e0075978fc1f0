"""How the engine writes files: atomically when finished, line by line while a run goes on.

Finished files are written atomically (a temporary file renamed into place, the file and then
its folder synced), so a crash or a power cut while writing never leaves a half-written file
where a good one was. The live event log never stops a run: a write that fails (a full disk)
ends the log with one warning, and the run goes on with its session in memory. Which files a
session holds, and what goes in them, is profiler/folders/files.py's business.
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Callable
from pathlib import Path

from tcprof.profiler.protocol.types import Event
from tcprof.profiler.protocol.wire import encode


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
    sync_folder(path.parent)


def sync_folder(folder: str | Path) -> None:
    """Make a rename in `folder` durable (its entry is written when the folder is synced).
    Where folders cannot be opened (Windows), the rename alone is what there is."""
    try:
        fd = os.open(folder, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


class EventLog:
    """A listener that appends every event to a file (events.jsonl) as it arrives.

    When the file cannot be opened or written, the log stops and `on_failure` gets one `log`
    event that says so; the caller passes it on (into the session and to the user). Nothing is
    raised into the run."""

    def __init__(self, path: str | Path, on_failure: Callable[[Event], None] | None = None):
        self.path = Path(path)
        self.on_failure = on_failure
        self.failure: str | None = None  # why the log stopped, once it has
        self._open_error: OSError | None = None
        self._file = None
        self._closed = False
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            self._file = open(self.path, "ab")
        except OSError as exc:
            self._open_error = exc

    def __call__(self, event: Event) -> None:
        if self.failure is not None or self._closed:
            return
        if self._file is None:
            self._stop(self._open_error or OSError("not open"))
            return
        try:
            self._file.write(encode(event))
            self._file.flush()
        except OSError as exc:
            self._stop(exc)

    def _stop(self, exc: OSError) -> None:
        reason = exc.strerror or str(exc)
        self.failure = (
            f"{self.path.name} could not be written ({reason}): the run goes on, what it "
            "measures is kept in memory and saved with session.json when the run ends"
        )
        self._release()
        if self.on_failure is not None:
            self.on_failure({"type": "log", "stream": "tcprof", "text": self.failure})

    def close(self) -> None:
        self._closed = True
        self._release()

    def _release(self) -> None:
        if self._file is None:
            return
        file, self._file = self._file, None
        try:
            file.close()
        except OSError:
            pass  # what could not be flushed is lost from the log, not from the session
