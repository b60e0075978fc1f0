"""The window's title: what is open, named as editors name the open file."""

from __future__ import annotations

import time
from pathlib import Path

from tcprof.profiler.model.session import SessionModel

TITLE = "Torch Compile Profiler"


def session_date(session: SessionModel) -> str:
    """'2024-05-01 12:00' from the session's started_at, or 'unknown date'."""
    started = session.started_at
    if started is not None:
        try:
            return time.strftime("%Y-%m-%d %H:%M", time.localtime(started))
        except (OverflowError, OSError, ValueError):
            pass
    return "unknown date"


def window_title(model_path: str, saved: SessionModel | None = None) -> str:
    """'simple.py — Torch Compile Profiler' for the model in the panel, or
    'simple.py — session of 2024-05-01 12:00 — Torch Compile Profiler' while a saved session is
    shown (its own model file, whatever the panel now holds)."""
    if saved is not None:
        path = saved.options.source.path
        name = Path(path).name if path else "unknown model"
        return f"{name} — session of {session_date(saved)} — {TITLE}"
    return f"{Path(model_path).name} — {TITLE}" if model_path else TITLE
