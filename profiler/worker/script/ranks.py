"""A script under torchrun (`--nproc N`) joins its own process group, from the environment
torchrun set, each time it runs in a rank: once per round, and again for each value of a sweep
and each run of the accuracy pass, in the same process.

Every run's group rendezvous through the same store (torchrun's agent hosts it) under the same
keys: the default group's name is a hash of its ranks, and counters such as the store barrier's
add up. A second run would read the first one's keys (a peer's old address, a barrier already
passed) and wait forever in its first collective. So each run after a rank's first sees the
store through a prefix of its own (`tcprof/run<N>/`): every rank counts its runs alike, as they
run the script in lockstep. The first run sees the store exactly as under plain torchrun. After
each run the default group is destroyed if the script left it, so the next run can join again.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from tcprof.profiler.worker import distributed


@contextmanager
def own_rendezvous(run: int) -> Iterator[None]:
    """The script's `run`-th run (0 first) in this rank, with a store namespace of its own."""
    if not distributed.is_rank():
        yield
        return
    from torch.distributed import PrefixStore
    from torch.distributed.rendezvous import _rendezvous_handlers as handlers

    original = handlers["env"]

    def handler(url: str, *args: Any, **kwargs: Any) -> Iterator[Any]:
        for store, rank, world_size in original(url, *args, **kwargs):
            yield PrefixStore(f"tcprof/run{run}/", store), rank, world_size

    if run:
        handlers["env"] = handler
    try:
        yield
    finally:
        handlers["env"] = original
        distributed.destroy_process_group()
