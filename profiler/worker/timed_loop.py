"""The timed training loop: one step at a time, no per-step synchronisation on CUDA.

CPU: perf_counter_ns() around each step. MPS: the same, with a synchronisation inside the timed
region (MPS runs asynchronously and has no timing events). CUDA: a ring of timing-event pairs
(`CudaEventRing`) that holds a whole block, recorded around each step; one synchronisation after
the block, then the times are read and handed on, so the CPU keeps running ahead of the GPU
exactly as in an untimed loop and nothing is written to the event pipe while a block runs (a
block longer than its `progress_ns` excepted: see the class).

A block runs at least `n` steps and at least `min_ns` nanoseconds, so that tiny steps are not
measured in short bursts right after a pipe round trip.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Sequence
from typing import Any

import torch

from tcprof.profiler.worker.channel import FLUSH_INTERVAL_S

FLUSH_NS = int(FLUSH_INTERVAL_S * 1e9)
RING_MARGIN = 1.5  # a CUDA ring holds this many times the steps a block is expected to run

Flush = Callable[[int, list[float]], None]  # (start step index, milliseconds) -> None


def run_cpu(
    step: Callable[[Any], Any],
    batches: Sequence[Any],
    n: int,
    first: int,
    flush: Flush,
    *,
    min_ns: int = 0,
    flush_ns: int = FLUSH_NS,
    sync: Callable[[], None] | None = None,
) -> tuple[Any, int]:
    """Run steps from step index `first`; returns (the last loss tensor, steps run)."""
    clock = time.perf_counter_ns
    pending: list[float] = []
    start = first
    began = last_flush = clock()
    loss = None
    count = len(batches)
    i = first
    while i < first + n or clock() - began < min_ns:
        batch = batches[i % count]
        t0 = clock()
        loss = step(batch)
        if sync is not None:
            sync()
        t1 = clock()
        pending.append((t1 - t0) / 1e6)
        i += 1
        if t1 - last_flush >= flush_ns:
            flush(start, pending)
            start, pending = i, []
            last_flush = clock()
    if pending:
        flush(start, pending)
    return loss, i - first


def _timing_event() -> Any:
    return torch.cuda.Event(enable_timing=True)


def _synchronize() -> None:
    torch.cuda.synchronize()


class CudaEventRing:
    """CUDA step timing with one pair of timing events per step of a block, read after it.

    Sizing: before a block the ring holds RING_MARGIN times the steps the block is expected to
    run: `n`, or, when `min_ns` lengthens it, `min_ns` over the previous block's wall time per
    step (measured up to its synchronisation, so that a CPU running ahead in a short block does
    not make steps look shorter than they are); after a block, RING_MARGIN times the steps it
    ran. Growing happens only there, between blocks. Each new event is recorded once when it is
    made, since torch creates the driver's event lazily at its first record: a step's records
    then never pay for a creation. The ring never shrinks.

    Overflow: a block that still runs more steps than the ring holds gets another pair per
    extra step, made (and recorded once) mid-block without synchronising, before that step's
    begin record. Stopping the timing instead would leave steps run but not measured (fewer
    samples than `block_done.steps`, which reads as a block cut short) and bias the block
    towards its early steps, while making an event is host work (microseconds; it never waits
    on the GPU) in the gap between two steps, outside every measured interval. `overflow` says
    how many pairs the last block added that way (0: the ring held it), for the caller to
    report.

    Reading: one `synchronize()` after the block, then every pair's `elapsed_time`, handed to
    `flush` in order. `progress_ns` (None: off) is a safety valve for very long blocks: at most
    that often, the steps whose end event has already completed (`query()`, which never waits)
    are handed on early, so a watcher that wants events (the stall timeout) sees progress; no
    synchronisation happens inside a block either way.

    `event_factory` and `synchronize` are injectable so the ring can be tested without a GPU:
    an event needs `record()`, `query()` and `elapsed_time(end)` (milliseconds).
    """

    def __init__(
        self,
        event_factory: Callable[[], Any] = _timing_event,
        synchronize: Callable[[], None] = _synchronize,
        *,
        clock: Callable[[], int] = time.perf_counter_ns,
        size: int = 0,
    ) -> None:
        self._new_event = event_factory
        self._synchronize = synchronize
        self._clock = clock
        self.slots: list[tuple[Any, Any]] = []
        self.step_ns: float | None = None  # the last block's wall time per step (synchronised)
        self.overflow = 0  # pairs the last block allocated mid-block
        self._ensure(size)

    @property
    def size(self) -> int:
        return len(self.slots)

    def expected_steps(self, n: int, min_ns: int = 0) -> int:
        """The steps a block of at least `n` steps and `min_ns` ns is expected to run."""
        steps = max(n, 1)
        if min_ns > 0 and self.step_ns:
            steps = max(steps, math.ceil(min_ns / self.step_ns))
        return steps

    def _ensure(self, size: int) -> None:
        """Grow to `size` pairs, creating each new event by recording it (never waits)."""
        if size <= len(self.slots):
            return
        new = [(self._new_event(), self._new_event()) for _ in range(size - len(self.slots))]
        for begin, end in new:
            begin.record()
            end.record()
        self.slots.extend(new)

    def run(
        self,
        step: Callable[[Any], Any],
        batches: Sequence[Any],
        n: int,
        first: int,
        flush: Flush,
        *,
        min_ns: int = 0,
        progress_ns: int | None = None,
    ) -> tuple[Any, int]:
        """Run steps from step index `first`; returns (the last loss tensor, steps run)."""
        self._ensure(math.ceil(self.expected_steps(n, min_ns) * RING_MARGIN))
        clock, slots = self._clock, self.slots
        count = len(batches)
        loss = None
        overflow = used = handed = 0  # handed: steps already passed to flush (progress_ns)
        began = last_progress = clock()
        while used < n or clock() - began < min_ns:
            if used == len(slots):  # no synchronisation: see the class's docstring
                self._ensure(used + 1)
                overflow += 1
            begin, end = slots[used]
            begin.record()
            loss = step(batches[(first + used) % count])
            end.record()
            used += 1
            if progress_ns is not None and clock() - last_progress >= progress_ns:
                handed = self._hand_completed(flush, first, handed, used)
                last_progress = clock()
        self.overflow = overflow
        if used:
            self._synchronize()
            self.step_ns = (clock() - began) / used
            times = [b.elapsed_time(e) for b, e in slots[handed:used]]
            self._ensure(math.ceil(used * RING_MARGIN))
            if times:
                flush(first + handed, times)
        return loss, used

    def _hand_completed(self, flush: Flush, first: int, handed: int, used: int) -> int:
        """Mid-block: pass on the steps the GPU has finished, without waiting for any."""
        done = handed
        while done < used and self.slots[done][1].query():
            done += 1
        if done > handed:
            flush(first + handed, [b.elapsed_time(e) for b, e in self.slots[handed:done]])
        return done
