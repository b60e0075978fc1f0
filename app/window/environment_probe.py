"""What the installed torch offers (devices, compile backends), probed once per process.

`probe_environment` starts a worker that imports torch (seconds), so it runs in the
background at start-up and the answer is cached: the window never waits for it, and a second
window in the same process (tests) does not probe again.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from tcprof.app.common.background import BackgroundCalls
from tcprof.profiler.process.inspection import probe_environment

_cached: dict[str, Any] | None = None


def cached_environment() -> dict[str, Any] | None:
    return _cached


def request_environment(
    background: BackgroundCalls, callback: Callable[[dict[str, Any]], None]
) -> None:
    """callback(env) on the GUI thread: at once if known, else after a background probe."""
    if _cached is not None:
        callback(_cached)
        return

    def done(env: dict[str, Any]) -> None:
        global _cached
        if "error" not in env:
            _cached = env
        callback(env)

    background.submit(probe_environment, done)
