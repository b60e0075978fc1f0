"""What the worker runs on: reported once in the `hello` event and stored in the session."""

from __future__ import annotations

import importlib.metadata
import os
import platform
import sys
from typing import Any

import torch

from tcprof.profiler.protocol.events import PROTOCOL_VERSION


def warm_up() -> None:
    """Pay the one-off imports before a run needs them: building any torch.optim optimizer
    imports TorchDynamo (1-2 s), which a pre-started worker can do while the user sets up."""
    from torch import _dynamo  # noqa: F401

    torch.optim.SGD([torch.nn.Parameter(torch.zeros(1))], lr=0.1)


def resolve_device(requested: str) -> str:
    if requested != "auto":
        return requested
    if torch.cuda.is_available():
        return "cuda"
    if getattr(torch.backends, "mps", None) and torch.backends.mps.is_available():
        return "mps"
    return "cpu"


def available_devices() -> list[str]:
    devices = ["cpu"]
    if torch.cuda.is_available():
        devices.append("cuda")
    if getattr(torch.backends, "mps", None) and torch.backends.mps.is_available():
        devices.append("mps")
    return devices


def _backends() -> list[str]:
    from torch import _dynamo

    return sorted(_dynamo.list_backends(exclude_tags=()))


def cpu_name() -> str:
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def triton_version() -> str | None:
    """The triton installed beside torch (its metadata: importing it costs seconds), or None."""
    try:
        return importlib.metadata.version("triton")
    except importlib.metadata.PackageNotFoundError:
        return None


def describe(device: str, with_backends: bool = True) -> dict[str, Any]:
    """with_backends imports TorchDynamo (about a second): only compiled arms and probes need it."""
    info: dict[str, Any] = {
        "protocol": PROTOCOL_VERSION,  # checked by the engine (wire.check_hello)
        "torch": torch.__version__,
        "triton": triton_version(),
        "python": sys.version.split()[0],
        "executable": sys.executable,  # an arm's own interpreter (`python=`) is told apart by it
        "platform": platform.platform(),
        "device": device,
        "device_name": cpu_name(),
        "cpu": cpu_name(),
        "cpu_count": os.cpu_count(),
        "torch_threads": torch.get_num_threads(),
        "cuda": torch.version.cuda,
        "cuda_available": torch.cuda.is_available(),
        "devices": available_devices(),
        "backends": _backends() if with_backends else None,
        "pid": os.getpid(),
    }
    if device == "cuda" and torch.cuda.is_available():
        info["device_name"] = torch.cuda.get_device_name()
        props = torch.cuda.get_device_properties(0)
        info["cuda_memory_mb"] = round(props.total_memory / 2**20)
    return info
