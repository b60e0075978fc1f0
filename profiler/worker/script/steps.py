"""A script's steps as its hooks see them: where each began, its first forward, its end, and
the losses `backward` was called on.

A step is one optimizer step (the global step hooks of torch.optim see every optimizer, one
driven by a GradScaler too), so gradient accumulation's micro-batches are one step; with
`--step-on forward` it is one call of the model. A step's compute runs from its first forward
(a training forward: grad enabled and the model in train mode, so an evaluation between steps
is the script's own time) to its end; the script's own time runs from the step before's end (or
from where the script resumed after a pause) to that first forward. Nothing here reads a time
or a loss: the marks are read after a block (script_clock.py). What each counted forward was
given adds to the step's work (script_work.py): every micro-batch of an accumulating step.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import torch

from tcprof.profiler.worker.script.clock import CpuClock, CudaClock, clock_for_script
from tcprof.profiler.worker.script.work import Work


class ScriptStopped(BaseException):
    """tcprof ends the script: enough steps were measured. A BaseException, so the script's
    own `except Exception` does not swallow it, while its `finally` blocks run."""


class NoFirstStep(BaseException):
    """No step within --no-step-timeout of the script's own time (raised by an alarm)."""


@dataclass
class StepMarks:
    index: int  # 0 for the script's first step
    boundary: Any  # where the step began: the step before's end, or a resume (None: step 0)
    start: Any  # its first forward (None: no forward of the model was seen)
    end: Any
    losses: list[torch.Tensor] = field(default_factory=list)
    work: Work = field(default_factory=Work)  # the samples and tokens its forwards were given


@dataclass
class StepTimes:
    compute_ms: float
    own_ms: float | None
    loss: float | None


class StepTracker:
    def __init__(self, step_on: str, on_step: Callable[[StepMarks], None]) -> None:
        self.step_on = step_on
        self.on_step = on_step
        self.clock: CpuClock | CudaClock | None = None
        self.boundary: Any = None
        self.started: Any = None
        self.losses: list[torch.Tensor] = []
        self.work = Work()
        self.index = 0
        self.stopping = False
        self.began_s = time.perf_counter()
        self.first_forward_s: float | None = None  # seconds from the script's start

    def check(self) -> None:
        """Every hook: once the script was told to end, it ends (even if it caught that)."""
        if self.stopping:
            raise ScriptStopped

    def stop(self) -> None:
        self.stopping = True
        raise ScriptStopped

    def _clock(self) -> CpuClock | CudaClock:
        if self.clock is None:
            self.clock = clock_for_script()
        return self.clock

    def forward_start(
        self, training: bool, args: Any = (), kwargs: dict[str, Any] | None = None
    ) -> None:
        """A call of the model, with what it was given. In optimizer mode only a training
        forward starts compute and counts as work."""
        self.check()
        if self.step_on == "optimizer" and not training:
            return
        self.work.add(args, kwargs)
        if self.started is not None:
            return
        if self.first_forward_s is None:
            self.first_forward_s = time.perf_counter() - self.began_s
        self.started = self._clock().mark()

    def forward_end(self) -> None:
        if self.step_on == "forward":
            self.step_end()

    def backward(self, loss: torch.Tensor) -> None:
        self.check()
        self.losses.append(loss)

    def step_end(self) -> None:
        self.check()
        end = self._clock().mark()
        marks = StepMarks(self.index, self.boundary, self.started, end, self.losses, self.work)
        self.index += 1
        self.losses, self.started, self.boundary, self.work = [], None, end, Work()
        self.on_step(marks)

    def resume(self) -> None:
        """After a pause at a step boundary: the next step's own time starts now."""
        self.boundary = self._clock().mark()

    def read(self, marks: StepMarks) -> StepTimes:
        """A step's times and loss (call after `settle`: on CUDA its events are complete)."""
        clock = self._clock()
        begin = marks.start if marks.start is not None else marks.boundary
        compute = clock.ms(begin, marks.end) if begin is not None else 0.0
        own = None
        if marks.boundary is not None and marks.start is not None:
            own = max(0.0, clock.ms(marks.boundary, marks.start))
        return StepTimes(compute, own, loss_value(marks.losses))

    def settle(self) -> None:
        self._clock().settle()

    def release(self, steps: list[StepMarks]) -> None:
        """Hand the marks of read steps back (a CUDA clock reuses its events)."""
        clock = self._clock()
        starts = [s.start for s in steps]
        # an end is the next step's boundary: the last end may still be in use
        clock.release(starts + [s.boundary for s in steps if s.boundary is not self.boundary])


def loss_value(losses: list[torch.Tensor]) -> float | None:
    """The step's loss: the sum of what `backward` was called on (with gradient accumulation
    the script scales each micro-batch's loss, so the sum is the step's mean); None when
    nothing was."""
    if not losses:
        return None
    try:
        return float(sum(float(t) for t in losses))
    except (RuntimeError, ValueError, TypeError):
        return None
