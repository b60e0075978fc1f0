"""The machine's own speed, read before and after each timed block: a fixed matrix product
timed a few times (about 2 ms in all, outside the block).

The quiet room sees the run's own processes and the machine's CPU time; what it cannot see is a
machine whose speed moves under it (a virtual machine whose host is busy elsewhere, a core's
clock). On this project's machine a fixed 256x256 product read 199-213 us for half a minute,
then 120-260 us from one second to the next, and the eager/compiled ratio of adjacent blocks
went from 1.06-1.10 to 0.81-1.41 (docs/benchmarks.md, "The machine's own speed"). What the
readings mean for a block is the session's to judge (session/machine_speed.py).
"""

from __future__ import annotations

import statistics
import time

import torch

SIZE = 256  # a product of this size takes about 0.2 ms on one core of this machine
WARM = 2  # products untimed first: the caches and the clock after the block's wait or steps
REPEATS = 7

_operands: tuple[torch.Tensor, torch.Tensor] | None = None


def reference_us() -> float:
    """The median time of one fixed CPU matrix product, in microseconds, with the threads the
    arm runs with (so it reads the cores the block uses)."""
    global _operands
    if _operands is None:
        generator = torch.Generator().manual_seed(0)
        _operands = (
            torch.randn(SIZE, SIZE, generator=generator),
            torch.randn(SIZE, SIZE, generator=generator),
        )
    a, b = _operands
    for _ in range(WARM):
        torch.mm(a, b)
    times = []
    for _ in range(REPEATS):
        start = time.perf_counter_ns()
        torch.mm(a, b)
        times.append(time.perf_counter_ns() - start)
    return statistics.median(times) / 1000.0
