"""Memory readings for one arm's process: CPU RSS (with a per-batch-size peak) and CUDA pools."""

from __future__ import annotations

import os
import resource

import psutil
import torch

MB = 2**20


class MemoryProbe:
    def __init__(self, device: torch.device) -> None:
        self._proc = psutil.Process(os.getpid())  # one Process object, reused
        self._cuda = device.type == "cuda"
        self._can_reset_hwm = os.path.exists("/proc/self/clear_refs")
        self._sampled_peak_rss = 0.0

    def reset_peaks(self) -> None:
        """Start a new peak window (one per batch size)."""
        self._sampled_peak_rss = 0.0
        if self._can_reset_hwm:
            try:  # Linux: writing 5 resets the peak RSS (VmHWM) of this process
                with open("/proc/self/clear_refs", "w") as f:
                    f.write("5")
            except OSError:
                self._can_reset_hwm = False
        if self._cuda:
            torch.cuda.reset_peak_memory_stats()

    def sample(self) -> dict[str, float | None]:
        rss = self._proc.memory_info().rss / MB
        self._sampled_peak_rss = max(self._sampled_peak_rss, rss)
        out: dict[str, float | None] = {
            "rss_mb": round(rss, 2),
            "cuda_alloc_mb": None,
            "cuda_reserved_mb": None,
        }
        if self._cuda:
            stats = torch.cuda.memory_stats()  # one call, not one per key
            out["cuda_alloc_mb"] = round(stats.get("allocated_bytes.all.current", 0) / MB, 2)
            out["cuda_reserved_mb"] = round(stats.get("reserved_bytes.all.current", 0) / MB, 2)
        return out

    def peaks(self) -> dict[str, float | None]:
        self.sample()
        hwm = self._read_hwm_mb()
        out: dict[str, float | None] = {
            "peak_rss_mb": round(max(hwm or 0.0, self._sampled_peak_rss), 2),
            "os_peak_rss_mb": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 2),
            "peak_cuda_mb": None,
            "peak_cuda_reserved_mb": None,
        }
        if self._cuda:
            stats = torch.cuda.memory_stats()
            out["peak_cuda_mb"] = round(stats.get("allocated_bytes.all.peak", 0) / MB, 2)
            out["peak_cuda_reserved_mb"] = round(stats.get("reserved_bytes.all.peak", 0) / MB, 2)
        return out

    def peak_mb(self) -> float | None:
        """The peak since reset_peaks(): CUDA's max allocated, else the process's peak RSS."""
        peaks = self.peaks()
        return peaks["peak_cuda_mb"] if self._cuda else peaks["peak_rss_mb"]

    def _read_hwm_mb(self) -> float | None:
        if not self._can_reset_hwm:
            return None
        try:
            with open("/proc/self/status") as f:
                for line in f:
                    if line.startswith("VmHWM:"):
                        return int(line.split()[1]) / 1024
        except OSError:
            return None
        return None
