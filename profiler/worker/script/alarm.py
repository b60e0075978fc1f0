"""The no-first-step alarm: NoFirstStep is raised in a script that has not stepped after
`--no-step-timeout` seconds of its own time.

A compile is not the script's time: an inductor compile of a modest model on a slow machine
takes longer than the timeout, and the script would be called "not a training script" while it
waits for it. TorchDynamo's compile callbacks (`torch._dynamo.callback.callback_handler`: they
run at the start and the end of each compile, a frame's trace or a lazily compiled backward,
nested compiles once) pause the alarm: at a compile's start the time left is kept and the timer
stopped, and at its end the timer resumes with what was left. Resuming with the time left, not
the whole timeout, keeps the bound on the script's own time: a script that compiles a function
now and then (or recompiles every call) and never steps still ends after S seconds of its own
time, where a full re-arm at each compile's end would let it run for ever.

The callbacks are registered when the alarm is armed and removed when it is cancelled (the first
step, or the run's end). `torch._dynamo.reset()` clears every callback: a script that calls it
before its first step has its compiles counted again from then on.
"""

from __future__ import annotations

import signal
from types import FrameType
from typing import Any

from tcprof.profiler.worker.script.steps import NoFirstStep

_armed = False  # the compile callbacks are registered
_left: float | None = None  # the seconds left while a compile holds the alarm


def _alarm(signum: int, frame: FrameType | None) -> None:
    raise NoFirstStep


def arm(seconds: float, compiles: bool) -> None:
    """No first step within `seconds` of the script's own time: NoFirstStep is raised in the
    script (`cancel` at its first step). SIGALRM interrupts a sleep or a blocking read, so a
    waiting script ends. `compiles`: a compiled arm, whose compiles pause the alarm (an eager
    arm's `torch.compile` compiles nothing, and it does not pay for importing TorchDynamo)."""
    global _armed, _left
    if not hasattr(signal, "setitimer"):
        return
    cancel()
    signal.signal(signal.SIGALRM, _alarm)
    _armed, _left = compiles, None
    if compiles:
        _callbacks(register=True)
    signal.setitimer(signal.ITIMER_REAL, seconds)


def cancel() -> None:
    """The alarm off, and the compile callbacks removed (idempotent)."""
    global _armed, _left
    if not hasattr(signal, "setitimer"):
        return
    signal.setitimer(signal.ITIMER_REAL, 0)
    if _armed:
        _callbacks(register=False)
    _armed, _left = False, None


def paused() -> bool:
    """A compile holds the alarm now."""
    return _left is not None


def _compile_start(args: Any) -> None:
    global _left
    if _armed and _left is None:
        left, _ = signal.setitimer(signal.ITIMER_REAL, 0)
        # 0: it expired just now and its handler is about to run; resuming with 0 would stop it
        _left = max(left, 1e-3)


def _compile_end(args: Any) -> None:
    global _left
    if _armed and _left is not None:
        left, _left = _left, None
        signal.setitimer(signal.ITIMER_REAL, left)


def _callbacks(register: bool) -> None:
    from torch._dynamo.callback import callback_handler

    if register:
        callback_handler.register_start_callback(_compile_start)
        callback_handler.register_end_callback(_compile_end)
        return
    for callbacks in (callback_handler.start_callbacks, callback_handler.end_callbacks):
        for callback in (_compile_start, _compile_end):
            while callback in callbacks:  # gone already when the script called dynamo's reset()
                callbacks.remove(callback)
