"""Before a timed block: wait until the other processes of the run are idle, then for the
engine's small random wait (run/draws.py), so a periodic load meets the block at a random phase.

A block is only fair if nothing else of ours computes while it is timed: another arm's worker
(or its compile sub-processes), the CLI, or the window drawing its plots. The worker samples
the CPU time of those processes over a short window and starts the block once they used less
than a small share of a core; if they never quiet down, the block runs anyway and is flagged.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Iterable

import psutil

WINDOW_S = 0.05
MAX_WAIT_S = 2.0
BUSY_SHARE = 0.2  # more than a fifth of one core over the window counts as busy


def _cpu_seconds(pids: Iterable[int], exclude: frozenset[int] = frozenset()) -> float:
    """CPU seconds used so far by the peers and their descendants, except this process (the
    CLI's or the window's descendants include the worker that is about to be timed) and the
    excluded ones (a rank's own launcher and fellow ranks, which wait for it)."""
    me = os.getpid()
    total = 0.0
    for pid in pids:
        try:
            proc = psutil.Process(pid)
            procs = [proc, *proc.children(recursive=True)]
        except psutil.Error:
            continue
        for p in procs:
            if p.pid == me or p.pid in exclude:
                continue
            try:
                t = p.cpu_times()
                total += t.user + t.system
            except psutil.Error:
                continue
    return total


def wait_for_quiet(
    pids: Iterable[int],
    window_s: float = WINDOW_S,
    max_wait_s: float = MAX_WAIT_S,
    busy_share: float = BUSY_SHARE,
    clock: Callable[[], float] = time.monotonic,
    sleep: Callable[[float], None] = time.sleep,
    exclude: Iterable[int] = (),
) -> tuple[bool, float]:
    """(quiet, seconds waited). Quiet when the peers' CPU time advanced by less than
    busy_share * window over one window; gives up after max_wait_s."""
    pids = [p for p in pids if p and p > 0]
    if not pids:
        return True, 0.0
    began = clock()
    skip = frozenset(exclude)
    while True:
        before = _cpu_seconds(pids, skip)
        sleep(window_s)
        used = _cpu_seconds(pids, skip) - before
        waited = clock() - began
        if used <= busy_share * window_s:
            return True, waited
        if waited >= max_wait_s:
            return False, waited


def random_wait(wait_s: float | None, sleep: Callable[[float], None] = time.sleep) -> None:
    """The block's untimed random wait, after the quiet room (whose own wait ends when the
    peers go quiet, a phase the schedule would otherwise fix)."""
    if wait_s and wait_s > 0:
        sleep(float(wait_s))


CONTENDED_CORES = 0.5  # other processes busy on more than half a core, on average, over a block
TICK_S = 0.01  # the resolution of the kernel's CPU times (USER_HZ = 100)


class BlockWatch:
    """How busy the rest of the machine was while a block ran: the whole machine's CPU time
    less this process's (and its own job's, for a rank), over the block's wall time. The quiet
    room only checks the start of a block; a neighbour that wakes during it (another user's
    job: eager's steps went from 9 to 620 ms) shows here."""

    def __init__(self, exclude: Iterable[int] = ()) -> None:
        self._exclude = [p for p in exclude if p and p != os.getpid()]
        self._start = self._sample()

    def _sample(self) -> tuple[float, float, float]:
        machine = psutil.cpu_times()
        busy = sum(machine) - machine.idle - getattr(machine, "iowait", 0.0)
        own = psutil.Process().cpu_times()
        mine = own.user + own.system + _cpu_seconds(self._exclude)
        return time.monotonic(), busy, mine

    def read(self) -> tuple[float, bool]:
        """(cores the rest of the machine kept busy on average since the watch began, whether
        that is contention). CPU times tick every 10 ms on each core, so a short block on a
        large machine reads a core or more either way: contention must exceed that error."""
        t1, busy1, mine1 = self._sample()
        t0, busy0, mine0 = self._start
        wall = t1 - t0
        if wall <= 0:
            return 0.0, False
        elsewhere = max(0.0, ((busy1 - busy0) - (mine1 - mine0)) / wall)
        tick_error = ((psutil.cpu_count() or 1) + 1) * TICK_S / wall
        return elsewhere, elsewhere > CONTENDED_CORES + tick_error
