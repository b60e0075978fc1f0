"""A worker's traceback with the user's own frames first: tcprof's, torch's and Python's hidden.

A model that fails deep inside torch.compile has a traceback of sixty frames, of which the two
in the user's file are the ones they can change. `user_frames` keeps every line that is not a
frame (the "Traceback" headers, the chained-exception notes, the exception lines) and the frames
of the user's files; the rest is counted, and the banner shows it on request.
"""

from __future__ import annotations

import os
import re
import sysconfig
from dataclasses import dataclass
from pathlib import Path

import tcprof

_FRAME = re.compile(r'^\s*File "([^"]+)", line \d+')
_PACKAGES = ("site-packages", "dist-packages")
# tcprof's own folders, as imported (a checkout links them under tcprof/) and as they lie on disk.
_OWN = tuple(
    {
        str(folder)
        for part in ("app", "profiler")
        for folder in (
            Path(tcprof.__file__).parent / part,
            (Path(tcprof.__file__).parent / part).resolve(),
        )
    }
)


def _stdlib() -> tuple[str, ...]:
    paths = {sysconfig.get_paths().get(k) for k in ("stdlib", "platstdlib")}
    return tuple(os.path.realpath(p) for p in paths if p)


def is_user_file(filename: str) -> bool:
    """Not tcprof's, not an installed package's (torch), not the standard library's, not
    generated (<frozen importlib._bootstrap>, <string>, <eval_with_key>)."""
    if filename.startswith("<"):
        return False
    path = os.path.realpath(filename)
    if any(part in path for part in _PACKAGES):
        return False
    return not path.startswith((*_OWN, *_stdlib()))


@dataclass(frozen=True)
class Frames:
    user: str  # the traceback with only the user's frames
    hidden: int  # frames left out


def user_frames(traceback_text: str) -> Frames:
    lines = traceback_text.splitlines()
    kept: list[str] = []
    hidden = 0
    i = 0
    while i < len(lines):
        match = _FRAME.match(lines[i])
        if not match:
            kept.append(lines[i])
            i += 1
            continue
        # a frame is its File line and the indented source lines (and carets) under it
        end = i + 1
        while end < len(lines) and lines[end].startswith("    ") and not _FRAME.match(lines[end]):
            end += 1
        if is_user_file(match.group(1)):
            kept.extend(lines[i:end])
        else:
            hidden += 1
        i = end
    return Frames("\n".join(kept), hidden)
