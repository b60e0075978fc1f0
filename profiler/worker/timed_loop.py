"""The timed training loop: one step at a time, no per-step synchronisation on CUDA.

CPU: perf_counter_ns() around each step. MPS: the same, with a synchronisation inside the timed
region (MPS runs asynchronously and has no timing events). CUDA: a ring of timing-event pairs
recorded around each step and read only at flush points (every `flush_ns` or when the ring is
full), so the CPU keeps running ahead of the GPU exactly as in an untimed loop.

A block runs at least `n` steps and at least `min_ns` nanoseconds, so that tiny steps are not
measured in short bursts right after a pipe round trip.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from typing import Any

import torch

from tcprof.profiler.worker.channel import FLUSH_INTERVAL_S

FLUSH_NS = int(FLUSH_INTERVAL_S * 1e9)
CUDA_RING = 512

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


def run_cuda(
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
    clock = time.perf_counter_ns
    ring = [
        (torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True))
        for _ in range(min(max(n, 1), CUDA_RING))
    ]
    used = 0
    start = first
    began = last_flush = clock()
    loss = None
    count = len(batches)

    def drain() -> list[float]:
        ring[used - 1][1].synchronize()
        return [ring[j][0].elapsed_time(ring[j][1]) for j in range(used)]

    i = first
    while i < first + n or clock() - began < min_ns:
        begin, end = ring[used]
        begin.record()
        loss = step(batches[i % count])
        end.record()
        used += 1
        i += 1
        now = clock()
        if used == len(ring) or now - last_flush >= flush_ns:
            flush(start, drain())
            start, used = i, 0
            last_flush = clock()
    if used:
        flush(start, drain())
    return loss, i - first
