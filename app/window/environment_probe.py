"""What the installed torch offers (devices, compile backends), probed once per process.

`probe_environment` starts a worker that imports torch (seconds), so it runs in the
background at start-up and the answer is cached: the window never waits for it, and a second
window in the same process (tests) does not probe again. The worker's hello is read into the
model's typed `Environment` here, once; a failed probe reaches the window as a `Failure`.
"""

from __future__ import annotations

from collections.abc import Callable

from tcprof.app.common.background import BackgroundCalls, Failure, failure_of
from tcprof.profiler.model.context import Environment
from tcprof.profiler.process.inspection import probe_environment

_cached: Environment | None = None


def cached_environment() -> Environment | None:
    return _cached


def request_environment(
    background: BackgroundCalls, callback: Callable[[Environment | Failure], None]
) -> None:
    """callback(the environment, or why the probe failed) on the GUI thread: at once if known,
    else after a background probe."""
    if _cached is not None:
        callback(_cached)
        return

    def done(answer: object) -> None:
        global _cached
        failure = failure_of(answer)
        if failure is not None:
            callback(failure)
            return
        _cached = Environment.of(answer)
        callback(_cached)

    background.submit(probe_environment, done)
