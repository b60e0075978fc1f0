"""Marks in time for a script's steps, read after a block, never synchronising inside one.

A script's step is cut at three marks: the step boundary (the previous step's end, or where the
script resumed after a pause), the first forward of the step, and the step's end. On the CPU a
mark is `perf_counter_ns()`; on CUDA (when the script has initialised it by its first forward)
a mark is a recorded timing event, and a block's marks are read with one synchronisation after
it, as the model-file loop's CudaEventRing does. On an idle GPU two events are as far apart as
the CPU's records of them, so a CPU script in a CUDA process is timed right too.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

import torch


class CpuClock:
    kind = "cpu"

    def mark(self) -> Any:
        return time.perf_counter_ns()

    def ms(self, start: Any, end: Any) -> float:
        return float(end - start) / 1e6

    def settle(self) -> None:
        """Make every mark so far readable (nothing to wait for on the CPU)."""

    def release(self, marks: list[Any]) -> None:
        """Marks that were read and are no longer needed (events go back to the pool)."""


def _timing_event() -> Any:
    return torch.cuda.Event(enable_timing=True)


def _synchronize() -> None:
    torch.cuda.synchronize()


class CudaClock:
    """`event_factory` and `synchronize` are injectable, so the clock is tested without a GPU
    (an event needs `record()` and `elapsed_time(end)` in milliseconds)."""

    kind = "cuda"

    def __init__(
        self,
        event_factory: Callable[[], Any] = _timing_event,
        synchronize: Callable[[], None] = _synchronize,
    ) -> None:
        self._free: list[Any] = []
        self._new_event = event_factory
        self._synchronize = synchronize

    def mark(self) -> Any:
        event = self._free.pop() if self._free else self._new_event()
        event.record()
        return event

    def ms(self, start: Any, end: Any) -> float:
        return float(start.elapsed_time(end))

    def settle(self) -> None:
        self._synchronize()

    def release(self, marks: list[Any]) -> None:
        self._free.extend(m for m in marks if m is not None)


def clock_for_script() -> CpuClock | CudaClock:
    """CUDA events when the script has initialised CUDA (by its first forward), else the CPU's
    counter; never initialises CUDA itself."""
    if torch.cuda.is_available() and torch.cuda.is_initialized():
        return CudaClock()
    return CpuClock()
