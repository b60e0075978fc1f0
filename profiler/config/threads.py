"""How many torch threads a run's processes take: the host's physical cores by default, shared
by the ranks of a distributed arm on each node."""

from __future__ import annotations


def resolve_threads(concurrent_processes: int = 1) -> int:
    """The default torch.set_num_threads: the host's physical cores shared among the processes
    that compute at the same time (one, when arms take turns)."""
    import psutil

    cores = psutil.cpu_count(logical=False) or psutil.cpu_count() or 1
    return max(1, cores // max(1, concurrent_processes))


def threads_per_process(threads: int, ranks_per_node: int = 1) -> int:
    """torch.set_num_threads in each of an arm's processes: the run's threads (every arm's, as
    session.json records them), shared by the ranks a distributed arm runs on each node (1 for
    a single process). The engine computes it once per arm and its `load` command carries it;
    on --host without --threads the agent computes it there, from that host's cores."""
    return max(1, threads // max(1, ranks_per_node))
