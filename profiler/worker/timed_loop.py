"""The timed training loop: one step at a time, no per-step synchronisation.

CPU: perf_counter_ns() around each step. CUDA: a ring of timing-event pairs recorded around
each step and read only at flush points (every FLUSH_INTERVAL_S or when the ring is full), so
the CPU keeps running ahead of the GPU exactly as in an untimed loop.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from typing import Any

import torch

from profiler.worker.channel import FLUSH_INTERVAL_S

FLUSH_NS = int(FLUSH_INTERVAL_S * 1e9)
CUDA_RING = 512

Flush = Callable[[int, list[float]], None]  # (start step index, milliseconds) -> None


def run_cpu(
    step: Callable[[Any], Any], batches: Sequence[Any], n: int, first: int, flush: Flush
) -> Any:
    """Run n steps starting at step index `first`; returns the last loss tensor."""
    clock = time.perf_counter_ns
    pending: list[float] = []
    start = first
    last_flush = clock()
    loss = None
    count = len(batches)
    for i in range(first, first + n):
        batch = batches[i % count]
        t0 = clock()
        loss = step(batch)
        t1 = clock()
        pending.append((t1 - t0) / 1e6)
        if t1 - last_flush >= FLUSH_NS:
            flush(start, pending)
            start, pending = i + 1, []
            last_flush = clock()
    if pending:
        flush(start, pending)
    return loss


def run_cuda(
    step: Callable[[Any], Any], batches: Sequence[Any], n: int, first: int, flush: Flush
) -> Any:
    clock = time.perf_counter_ns
    ring = [
        (torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True))
        for _ in range(min(n, CUDA_RING))
    ]
    used = 0
    start = first
    last_flush = clock()
    loss = None
    count = len(batches)

    def drain() -> list[float]:
        ring[used - 1][1].synchronize()
        return [ring[j][0].elapsed_time(ring[j][1]) for j in range(used)]

    for i in range(first, first + n):
        begin, end = ring[used]
        begin.record()
        loss = step(batches[i % count])
        end.record()
        used += 1
        now = clock()
        if used == len(ring) or now - last_flush >= FLUSH_NS:
            flush(start, drain())
            start, used = i + 1, 0
            last_flush = clock()
    if used:
        flush(start, drain())
    return loss
