"""Steady training memory of one CPU training step, read from the PyTorch profiler.

Peak RSS cannot compare eager with torch.compile: it includes the compiler's own libraries and
the allocator's caching, and after warm-up its growth over a step is ~0. CPU has no
``max_memory_allocated``, but ``torch.profiler`` with ``profile_memory=True`` records every
allocation (+bytes) and free (-bytes) of tensor memory, so the running sum over one step gives
the peak of live tensor memory on top of what was alive when the step began.

How the events are read: ``prof.profiler.kineto_results.events()`` and keep the ``"[memory]"``
events (``nbytes()``, ``start_ns()``, ``device_type()``). This is the very list torch's own
``key_averages()`` / ``prof.events()`` are built from (``_parse_kineto_results``), but raw and
unfolded: ``prof.events()`` merges the memory records into the op that contains them (one
net figure per op, so an op's internal peak is lost), and ``prof._memory_profile()`` is a
private data-flow analysis that categorises tensors - slow and more likely to change.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

import torch
from torch.autograd import DeviceType
from torch.profiler import ProfilerActivity, profile

MB = 2**20
MEMORY_EVENT_NAME = "[memory]"  # torch.autograd.profiler_util.MEMORY_EVENT_NAME
# the device types torch itself counts as CPU memory (autograd.profiler._cpu_memory_usage)
_CPU_DEVICES = frozenset({DeviceType.CPU, DeviceType.MKLDNN, DeviceType.IDEEP})


def _tensors_of(obj: Any) -> Iterable[torch.Tensor]:
    """Every tensor held across steps by a module, optimizer, tensor or container of them."""
    if isinstance(obj, torch.Tensor):
        yield obj
        if obj.grad is not None:
            yield obj.grad
    elif isinstance(obj, torch.nn.Module):
        for t in (*obj.parameters(), *obj.buffers()):
            yield from _tensors_of(t)
    elif isinstance(obj, torch.optim.Optimizer):
        for group in obj.param_groups:
            for p in group["params"]:
                yield from _tensors_of(p)
        for state in obj.state.values():
            yield from _tensors_of(list(state.values()) if isinstance(state, dict) else state)
    elif isinstance(obj, dict):
        for v in obj.values():
            yield from _tensors_of(v)
    elif isinstance(obj, (list, tuple)):
        for v in obj:
            yield from _tensors_of(v)


def persistent_bytes(tensors_alive: Iterable[Any]) -> int:
    """Bytes of the unique storages behind ``tensors_alive`` (views and shared weights once)."""
    seen: dict[int, int] = {}
    for t in _tensors_of(list(tensors_alive)):
        try:
            storage = t.untyped_storage()
            ptr, nbytes = storage.data_ptr(), storage.nbytes()
        except (RuntimeError, NotImplementedError):  # meta/fake/sparse tensors hold no memory
            continue
        if ptr and nbytes:
            seen[ptr] = nbytes
    return sum(seen.values())


def _memory_deltas(prof: profile) -> list[int]:
    """Signed byte counts of the CPU tensor allocations/frees, in time order."""
    result = prof.profiler.kineto_results if prof.profiler is not None else None
    if result is None:
        return []
    events = [
        e
        for e in result.events()
        if e.name() == MEMORY_EVENT_NAME and e.device_type() in _CPU_DEVICES
    ]
    events.sort(key=lambda e: e.start_ns())  # stable: same-ns records keep recording order
    return [e.nbytes() for e in events]  # type: ignore[attr-defined]  # torch's stubs lack it


def training_step_memory(
    step: Callable[[Any], Any],
    batch: Any,
    tensors_alive: Iterable[Any],
    what: str | None = None,
) -> dict[str, float | str]:
    """Run ``step(batch)`` once under the profiler; persistent + peak transient memory in MiB.

    The caller has warmed up (optimizer state exists), so the step's transient memory
    (activations, gradients, workspaces) is what one steady training step adds on top of
    ``tensors_alive``. ``step_peak_mb`` is floored at 0 because a step may first free memory
    that was alive at its start (e.g. ``zero_grad()`` at the top frees last step's grads).
    For an inference loop's step (``what="inference forward"``) the same reading is the peak
    of one forward under ``torch.inference_mode()``: activations only, freed as they go.
    """
    persistent = persistent_bytes(tensors_alive)
    with profile(activities=[ProfilerActivity.CPU], profile_memory=True) as prof:
        step(batch)  # result dropped at once, inside the window, like the caller's loop
    running = peak = 0
    for delta in _memory_deltas(prof):
        running += delta
        peak = max(peak, running)
    return {
        "steady_peak_mb": round((persistent + peak) / MB, 6),
        "persistent_mb": round(persistent / MB, 6),
        "step_peak_mb": round(peak / MB, 6),
        "step_end_mb": round(running / MB, 6),
        "method": "torch.profiler profile_memory" + (f" ({what})" if what else ""),
    }
