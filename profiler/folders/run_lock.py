"""The lock a running run holds on its session folder, so nothing takes the folder for dead.

A run writes events.jsonl as events arrive and session.json only at its end; a long compile
can leave the log silent for minutes. Recovery (profiler/folders/recovery.py) rebuilds folders that
have a log but no session.json, and must never rebuild one a live run is still writing, in
another window or a terminal. The run holds an exclusive lock on `.lock` in its folder for its
whole life; the operating system drops the lock when the process ends, however it ends, so a
folder whose lock can be taken has no live run. POSIX uses flock, Windows a byte-range lock.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

LOCK_FILE = ".lock"

if sys.platform != "win32":
    import fcntl

    def _try_lock(fd: int) -> bool:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            return False
        return True

    def _unlock(fd: int) -> None:
        fcntl.flock(fd, fcntl.LOCK_UN)

else:  # Windows
    import msvcrt

    def _try_lock(fd: int) -> bool:
        try:
            os.lseek(fd, 0, os.SEEK_SET)
            msvcrt.locking(fd, msvcrt.LK_NBLCK, 1)
        except OSError:
            return False
        return True

    def _unlock(fd: int) -> None:
        os.lseek(fd, 0, os.SEEK_SET)
        msvcrt.locking(fd, msvcrt.LK_UNLCK, 1)


class FolderInUse(OSError):
    """Another live run holds the folder."""


class RunLock:
    """Held from construction until `release()` (or the process's end). FolderInUse when a
    live run already holds it. The file descriptor is not inherited by worker processes."""

    def __init__(self, folder: str | Path) -> None:
        self.path = Path(folder) / LOCK_FILE
        self._fd: int | None = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o644)
        if not _try_lock(self._fd):
            os.close(self._fd)
            self._fd = None
            raise FolderInUse(f"another run is writing into {self.path.parent}")
        try:  # who holds it, for a person looking (a full disk may refuse)
            os.ftruncate(self._fd, 0)
            os.write(self._fd, f"{os.getpid()}\n".encode())
        except OSError:
            pass

    @property
    def held(self) -> bool:
        return self._fd is not None

    def release(self) -> None:
        """Remove the file while still holding it (a prober then finds no lock file, and the
        finished run's session.json), then let go."""
        if self._fd is None:
            return
        fd, self._fd = self._fd, None
        try:
            self.path.unlink()
        except OSError:
            pass
        try:
            _unlock(fd)
        except OSError:
            pass
        os.close(fd)

    def __enter__(self) -> RunLock:
        return self

    def __exit__(self, *exc: object) -> None:
        self.release()


def is_locked(folder: str | Path) -> bool:
    """Whether a live process holds the folder's run lock (no lock file: no run holds it)."""
    try:
        fd = os.open(Path(folder) / LOCK_FILE, os.O_RDWR)
    except OSError:
        return False
    try:
        if not _try_lock(fd):
            return True
        _unlock(fd)
        return False
    finally:
        os.close(fd)
