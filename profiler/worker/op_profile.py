"""An optional torch.profiler pass: a few extra steps after the measured ones, profiled in a
separate pass so the profiler's overhead never enters the reported timings. It times its own
steps too (one discarded first), so the engine can compare them with the measured step."""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import torch

TOP_OPS = 15


def profile_steps(
    step: Callable[[Any], Any], batches: list[Any], n: int, device: torch.device, trace_path: Path
) -> tuple[list[dict[str, Any]], float]:
    """(top operators, wall ms per profiled step, the profiler's overhead included)."""
    from torch.profiler import ProfilerActivity, profile

    activities = [ProfilerActivity.CPU]
    if device.type == "cuda":
        activities.append(ProfilerActivity.CUDA)
    cuda = device.type == "cuda"
    step(batches[0])  # after a pipe round trip the first step is not representative
    if cuda:
        torch.cuda.synchronize()
    with profile(activities=activities, record_shapes=False) as prof:
        began = time.perf_counter()
        for i in range(n):
            step(batches[i % len(batches)])
        if cuda:
            torch.cuda.synchronize()
        step_ms = (time.perf_counter() - began) * 1000.0 / max(1, n)
    trace_path.parent.mkdir(parents=True, exist_ok=True)
    prof.export_chrome_trace(str(trace_path))
    return top_ops(prof, device, n), step_ms


def top_ops(prof: Any, device: torch.device, steps: int) -> list[dict[str, Any]]:
    on_gpu = device.type == "cuda"
    rows = []
    for evt in prof.key_averages():
        self_us = getattr(evt, "self_device_time_total", 0) if on_gpu else evt.self_cpu_time_total
        rows.append(
            {
                "name": evt.key,
                "calls": evt.count // max(1, steps),
                "self_ms_per_step": self_us / 1000.0 / max(1, steps),
                "total_ms_per_step": (
                    getattr(evt, "device_time_total", 0) if on_gpu else evt.cpu_time_total
                )
                / 1000.0
                / max(1, steps),
            }
        )
    rows.sort(key=lambda r: r["self_ms_per_step"], reverse=True)
    return rows[:TOP_OPS]
