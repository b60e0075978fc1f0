"""The window's title: what is open, named as editors name the open file."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

TITLE = "Torch Compile Profiler"


def session_date(session: dict[str, Any]) -> str:
    """'2024-05-01 12:00' from the session's started_at, or 'unknown date'."""
    started = session.get("started_at")
    if isinstance(started, (int, float)) and not isinstance(started, bool):
        try:
            return time.strftime("%Y-%m-%d %H:%M", time.localtime(started))
        except (OverflowError, OSError, ValueError):
            pass
    return "unknown date"


def window_title(model_path: str, saved: dict[str, Any] | None = None) -> str:
    """'simple.py — Torch Compile Profiler' for the model in the panel, or
    'simple.py — session of 2024-05-01 12:00 — Torch Compile Profiler' while a saved session is
    shown (its own model file, whatever the panel now holds)."""
    if saved is not None:
        config = saved.get("config")
        source = config.get("source") if isinstance(config, dict) else None
        path = source.get("path") if isinstance(source, dict) else None
        name = Path(path).name if isinstance(path, str) and path else "unknown model"
        return f"{name} — session of {session_date(saved)} — {TITLE}"
    return f"{Path(model_path).name} — {TITLE}" if model_path else TITLE
