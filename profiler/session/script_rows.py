"""A script's own figures in session.json (config.script set): per row, the step split into
compute (the headline `median_ms`: its first forward to its optimizer step's end) and the
script's own time before it (data loading, logging, evaluation), whether the script is
data-bound, its start-up (the median over its rounds), the loss curve of its first round, and
its unit of work with its throughput (samples or tokens per step and per second); per arm,
what the script did (its model, what was compiled and where) and the files it wrote."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from tcprof.profiler.config.script import WORK_UNITS
from tcprof.profiler.protocol.types import Json

if TYPE_CHECKING:
    from tcprof.profiler.session.records import ArmRecord, BatchResult

DATA_BOUND_SHARE = 0.5  # the script's own time is at least half of its step


def script_row(res: BatchResult, compute_median_ms: float | None, unit: str | None) -> Json:
    """The row's `script` figures."""
    medians = [float(np.median(v)) for _, v in sorted(res.own_by_rep.items()) if v]
    own = float(np.median(medians)) if medians else None
    step = compute_median_ms + own if compute_median_ms is not None and own is not None else None
    share = own / step if own is not None and step else None
    return {
        "compute_median_ms": compute_median_ms,
        "own_median_ms": own,
        "own_process_medians_ms": medians,
        "step_median_ms": step,
        "own_share": share,
        "data_bound": share is not None and share >= DATA_BOUND_SHARE,
        "startup_s": startup(res),
        "loss_curve": [[k, v] for k, v in sorted(res.loss_by_step.items())],
        **work_figures(res, compute_median_ms, unit),
    }


def startup(res: BatchResult) -> float | None:
    """The script's start-up: the median over its rounds (each a process of its own) of the
    seconds from the script's start to its first training forward, less the compiles before
    it, TorchDynamo imported before the clock in every arm (worker/arm_setup.py says why)."""
    seen = [f.get("startup_s") for _, f in sorted(res.first_steps.items())]
    values = [float(v) for v in seen if isinstance(v, (int, float))]
    return round(float(np.median(values)), 3) if values else None


def work_figures(res: BatchResult, compute_median_ms: float | None, unit: str | None) -> Json:
    """The script's unit of work and its throughput: samples and tokens per step (the median
    over measured steps of what their forwards were given, every micro-batch summed, padding
    counted), each per second of the headline's compute; `unit` the one a view shows: the
    `--unit` given, else tokens where the inputs were token ids, else samples, else steps."""
    samples, tokens = _per_step(res.samples), _per_step(res.tokens)

    def per_s(per_step: float | None) -> float | None:
        if per_step is None or not compute_median_ms:
            return None
        return per_step * 1000.0 / compute_median_ms

    if unit not in WORK_UNITS:
        unit = "tokens" if tokens is not None else "samples" if samples is not None else "steps"
    per_step = {"samples": samples, "tokens": tokens, "steps": 1.0}[unit]
    return {
        "unit": unit,
        "samples_per_step": samples,
        "tokens_per_step": tokens,
        "padding_counted": tokens is not None,
        "work_per_step": per_step,
        "work_per_s": per_s(per_step),
        "samples_per_s": per_s(samples),
        "tokens_per_s": per_s(tokens),
    }


def _per_step(values: list[int | None]) -> float | None:
    seen = [v for v in values if isinstance(v, (int, float))]
    return float(np.median(seen)) if seen else None


def script_arm(arm: ArmRecord) -> Json:
    """The arm's `script`: what its first round did, and the files its processes wrote."""
    return {
        "notes": arm.script_notes,
        "files": [{"path": p, "bytes": b} for p, b in sorted(arm.script_files.items())],
    }
