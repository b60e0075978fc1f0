"""The user's source lines around a graph break, read as text, from a file that is safe to read.

A session names the file and line of each graph break, and a session may come from someone
else: the name may be a FIFO (opening it blocks until a writer comes), /dev/zero (reading it
never ends) or a huge file. So only regular files under MAX_SOURCE_BYTES are read: the path is
checked with stat before it is opened, opened without blocking, checked again on the open file
(it may have been swapped meanwhile), and read up to the limit. Nothing is imported. Qt-free.
"""

from __future__ import annotations

import os
import stat
from typing import Any

MAX_SOURCE_BYTES = 1 << 20
CONTEXT_LINES = 4


class SourceUnavailable(OSError):
    """The file is not read (the message says why, in a few words)."""


def _regular_size(st: os.stat_result) -> int:
    if not stat.S_ISREG(st.st_mode):
        raise SourceUnavailable("not a regular file")
    if st.st_size > MAX_SOURCE_BYTES:
        raise SourceUnavailable(f"larger than {MAX_SOURCE_BYTES // (1 << 20)} MB")
    return st.st_size


def read_source(path: str) -> str:
    """The text of a regular file under MAX_SOURCE_BYTES; SourceUnavailable or OSError else."""
    _regular_size(os.stat(path))
    fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_BINARY", 0))
    chunks: list[bytes] = []
    size = 0
    try:
        _regular_size(os.fstat(fd))
        while size <= MAX_SOURCE_BYTES:
            chunk = os.read(fd, MAX_SOURCE_BYTES + 1 - size)
            if not chunk:
                break
            chunks.append(chunk)
            size += len(chunk)
    finally:
        os.close(fd)
    data = b"".join(chunks)
    if len(data) > MAX_SOURCE_BYTES:
        raise SourceUnavailable(f"larger than {MAX_SOURCE_BYTES // (1 << 20)} MB")
    return data.decode("utf-8", errors="replace")


def source_context(file: Any, line: Any, around: int = CONTEXT_LINES) -> str:
    """`file:line` and the lines around it, the line itself marked with '>'."""
    if not file or not isinstance(file, str) or not isinstance(line, int) or line < 1:
        return "(no source location)"
    try:
        lines = read_source(file).splitlines()
    except OSError as exc:
        return f"{file}:{line} (cannot read: {exc.strerror or exc})"
    lo, hi = max(1, line - around), min(len(lines), line + around)
    width = len(str(hi))
    body = [f"{'>' if n == line else ' '} {n:>{width}} | {lines[n - 1]}" for n in range(lo, hi + 1)]
    return f"{file}:{line}\n" + "\n".join(body)
