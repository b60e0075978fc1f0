"""The bodies of the events a real worker sends, with every field it fills, for the scripted
fake worker (fake_worker.py): plausible constant values, no torch."""

from __future__ import annotations

from typing import Any

from tcprof.profiler.protocol.events import PROTOCOL_VERSION

PEAKS = {  # bs_done's memory fields, as MemoryProbe.peaks() gives them on a CPU
    "peak_rss_mb": 150.0,
    "os_peak_rss_mb": 160.0,
    "peak_cuda_mb": None,
    "peak_cuda_reserved_mb": None,
}
STEADY = {"steady_peak_mb": 120.0, "steady_method": "fake"}  # bs_done's, in the first round
ACCURACY_PASS = {  # an `accuracy` verdict of check_step
    "status": "pass",
    "worst": None,
    "reason": None,
    "float64": True,
    "rtol": 1e-4,
    "atol": 1e-5,
    "compared": 2,
    "checked": ["output", "gradients"],
    "autocast": None,
}
LOOP = {  # `loaded`'s loop, as StepLoop.describe() gives it for fp32 training
    "kind": "train",
    "model_mode": "train",
    "inference_mode": False,
    "amp": None,
    "autocast_dtype": None,
    "grad_scaler": False,
    "channels_last": False,
    "channels_last_params": None,
    "optimizer": "eager",
}


def environment(device: str, compiled: bool, pid: int) -> dict[str, Any]:
    """`hello`, as environment.describe() fills it."""
    return {
        "torch": "0.0.0+fake",
        "triton": None,
        "python": "3",
        "executable": "/fake/bin/python",
        "platform": "fake",
        "device": "cpu" if device == "auto" else device,
        "device_name": "fake cpu",
        "cpu": "fake cpu",
        "cpu_count": 1,
        "torch_threads": 1,
        "cuda": None,
        "cuda_available": False,
        "devices": ["cpu"],
        "backends": ["aot_eager", "eager", "inductor"] if compiled else None,
        "pid": pid,
        "protocol": PROTOCOL_VERSION,
    }


def loaded(cache_dir: str | None, threads: int | None) -> dict[str, Any]:
    return {
        "model": "Fake()",
        "params": 10,
        "input": "(B, 4) float",
        "input_source": "inferred",
        "cache_dir": cache_dir,
        "threads": threads,
        "weights": None,
        "regional": None,
        "parallel": None,
        "loop": dict(LOOP),
        "candidates": [],
    }


def first_compile(seconds: float) -> dict[str, Any]:
    """A `compile` event's record, as CompileWatcher.take_compiles() gives it."""
    return {
        "compile_id": "0/0",
        "frame": "forward",
        "file": "model.py",
        "line": 1,
        "kind": "first",
        "reason": None,
        "seconds": seconds,
        "backend_s": seconds,
        "inductor_s": None,
        "code_gen_s": None,
        "fx_cache_hits": None,
        "fx_cache_misses": None,
        "aot_cache_hits": None,
        "aot_cache_misses": None,
        "graph_ops": 4,
        "guards": 3,
        "fail_type": None,
        "fail_reason": None,
    }


def error(kind: str, message: str, batch_size: int | None, fatal: bool) -> dict[str, Any]:
    """An `error` event's fields, as errors.describe() fills them."""
    return {
        "kind": kind,
        "message": message,
        "traceback": None,
        "file": None,
        "line": None,
        "batch_size": batch_size,
        "fatal": fatal,
    }


def protocol_error(message: str) -> dict[str, Any]:
    return error("protocol", message, None, fatal=True)
