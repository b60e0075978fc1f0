"""The framed multiplex over ssh's standard streams: events, commands and files on one pipe.

A frame is one kind byte, a 4-byte big-endian length and that many bytes. JSON frames carry one
object; a file is an opening frame (its path relative to a shared root), its data in chunks, and
a closing frame, so a file of any size never needs to sit in memory. ssh's stderr is not framed:
it carries ssh's own messages and the agent's, read as the worker's last words.
"""

from __future__ import annotations

import json
import os
import struct
import threading
from pathlib import Path, PurePosixPath
from typing import IO, Any

HELLO = b"H"  # agent → engine: versions, once, first
START = b"S"  # engine → agent: start the worker (kind, ranks, environment)
COMMAND = b"C"  # engine → agent: one worker command
EVENT = b"E"  # agent → engine: one worker event
STACKS = b"K"  # engine → agent: print the worker's stacks (a stalled worker)
CPU = b"P"  # engine → agent: report the worker's CPU seconds (the stall timeout's progress)
INFO = b"I"  # agent → engine: {"started": pid} | {"cpu": s} | {"exit": ..., "first_to_end": ...}
FILE = b"F"  # either way: a file begins ({"path": "session/..."})
DATA = b"D"  # its next chunk
END_FILE = b"Z"  # it is complete

HEADER = struct.Struct(">cI")
CHUNK = 1 << 20
MAX_FRAME = 16 << 20  # a longer frame is a broken stream, not a message

# Remote paths travel as this placeholder plus a root's name ("@tcprof-remote@/session/..."):
# the agent puts its private folder in its place, and the engine its own folders.
PLACEHOLDER = "@tcprof-remote@"


class FrameWriter:
    """Writes whole frames from any thread (one lock: frames never interleave)."""

    def __init__(self, stream: IO[bytes]) -> None:
        self._stream = stream
        self._lock = threading.Lock()

    def write(self, kind: bytes, payload: bytes = b"") -> bool:
        """False once the other side is gone."""
        with self._lock:
            return self._write_locked(kind, payload)

    def _write_locked(self, kind: bytes, payload: bytes) -> bool:
        try:
            self._stream.write(HEADER.pack(kind, len(payload)) + payload)
            self._stream.flush()
            return True
        except (OSError, ValueError):
            return False

    def write_json(self, kind: bytes, obj: dict[str, Any]) -> bool:
        return self.write(kind, json.dumps(obj).encode())

    def send_file(self, rel: str, path: Path) -> bool:
        """The file at `path`, to be written at `rel` under the other side's roots."""
        with self._lock:
            if not self._write_locked(FILE, json.dumps({"path": rel}).encode()):
                return False
            try:
                with open(path, "rb") as f:
                    while chunk := f.read(CHUNK):
                        if not self._write_locked(DATA, chunk):
                            return False
            except OSError:
                pass  # gone meanwhile: the other side keeps what came
            return self._write_locked(END_FILE, b"")

    def close(self) -> None:
        with self._lock:
            try:
                self._stream.close()
            except OSError:
                pass


def read_frame(stream: IO[bytes]) -> tuple[bytes, bytes] | None:
    """The next frame, or None at the end of the stream (or a cut or broken one)."""
    header = _read_exactly(stream, HEADER.size)
    if header is None:
        return None
    kind, size = HEADER.unpack(header)
    if size > MAX_FRAME:
        return None
    payload = _read_exactly(stream, size)
    return None if payload is None else (kind, payload)


def _read_exactly(stream: IO[bytes], size: int) -> bytes | None:
    data = b""
    while len(data) < size:
        try:
            part = stream.read(size - len(data))
        except (OSError, ValueError):
            return None
        if not part:
            return None
        data += part
    return data


class FileReceiver:
    """Writes the files that arrive under named roots ({"session": "/path", ...}); a path that
    names no known root or climbs out of its root is dropped."""

    def __init__(self, roots: dict[str, str]) -> None:
        self._roots = roots
        self._file: IO[bytes] | None = None
        self.received: list[Path] = []

    def on_frame(self, kind: bytes, payload: bytes) -> bool:
        """True if the frame was part of a file."""
        if kind == FILE:
            self._close()
            target = self.target(json.loads(payload).get("path", ""))
            if target is not None:
                target.parent.mkdir(parents=True, exist_ok=True)
                self._file = open(target, "wb")
                self.received.append(target)
            return True
        if kind == DATA:
            if self._file is not None:
                self._file.write(payload)
            return True
        if kind == END_FILE:
            self._close()
            return True
        return False

    def target(self, rel: str) -> Path | None:
        parts = PurePosixPath(rel).parts
        if len(parts) < 2 or rel.startswith("/") or ".." in parts:
            return None
        root = self._roots.get(parts[0])
        return None if root is None else Path(root, *parts[1:])

    def _close(self) -> None:
        if self._file is not None:
            self._file.close()
            self._file = None


def relative_files(folder: Path) -> dict[str, tuple[int, int]]:
    """Every file under `folder`: its path relative to it (POSIX) -> (size, mtime_ns)."""
    out: dict[str, tuple[int, int]] = {}
    for dirpath, _dirs, files in os.walk(folder):
        for name in files:
            path = Path(dirpath, name)
            try:
                st = path.stat()
            except OSError:
                continue
            out[path.relative_to(folder).as_posix()] = (st.st_size, st.st_mtime_ns)
    return out
