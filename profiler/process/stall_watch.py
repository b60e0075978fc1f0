"""Whether a busy worker still makes progress, for the stall timeout (`--stall-timeout`).

Progress is any event from the worker. Outside the timed phases, the worker's rising CPU time
(its whole process tree's: inductor compiles in sub-processes) counts too, so an honest cold
compile of many minutes, which sends no event until it ends, is never cut; a forward that
sleeps, or waits on input or on a dead peer, uses no CPU and is. In warm-up and measured blocks
every step ends with a sample, so there only events count (and the CPU is not sampled at all,
so nothing of ours runs beside a timed block).
"""

from __future__ import annotations

from collections.abc import Callable

import psutil

CpuTime = Callable[[int], float | None]  # a pid's process-tree CPU seconds, None if unknown

TIMED_PHASES = frozenset({"warmup", "measuring"})
CPU_POLL_S = 1.0  # at most; a short stall timeout samples more often
BUSY_SHARE = 0.02  # CPU use above this share of one core over a poll counts as progress


def process_tree_cpu_s(pid: int) -> float | None:
    """CPU seconds (user + system) used so far by a process and its live descendants."""
    try:
        proc = psutil.Process(pid)
        procs = [proc, *proc.children(recursive=True)]
    except psutil.Error:
        return None
    total = 0.0
    for p in procs:
        try:
            t = p.cpu_times()
        except psutil.Error:
            continue
        total += t.user + t.system + t.children_user + t.children_system
    return total


class ProgressWatch:
    """One worker's last progress, on the supervisor's clock."""

    def __init__(self, timeout_s: float, cpu_time: CpuTime, now: float) -> None:
        self.timeout_s = timeout_s
        self._cpu_time = cpu_time
        self._poll_s = min(CPU_POLL_S, timeout_s / 4)
        self.last = now
        self._cpu: float | None = None  # the latest sample and when it was taken
        self._cpu_at = now

    def note(self, now: float) -> None:
        """An event arrived, or a command was sent."""
        self.last = now

    def stalled(self, pid: int, phase: str | None, now: float) -> bool:
        """True once neither an event nor (outside timed phases) busy CPU was seen for
        timeout_s. Call it often (every poll); it samples the CPU at most every _poll_s."""
        if phase not in TIMED_PHASES and now - self._cpu_at >= self._poll_s:
            self._sample(pid, now)
        return now - self.last > self.timeout_s

    def _sample(self, pid: int, now: float) -> None:
        cpu = self._cpu_time(pid)
        if cpu is not None and self._cpu is not None:
            if cpu - self._cpu >= BUSY_SHARE * (now - self._cpu_at):
                self.last = now
        self._cpu, self._cpu_at = cpu, now
