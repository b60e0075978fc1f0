"""A script's own figures in session.json (config.script set): per row, the step split into
compute (the headline `median_ms`: its first forward to its optimizer step's end) and the
script's own time before it (data loading, logging, evaluation), whether the script is
data-bound, its start-up, and the loss curve of its first round; per arm, what the script did
(its model, what was compiled and where) and the files it wrote."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from tcprof.profiler.protocol.types import Json

if TYPE_CHECKING:
    from tcprof.profiler.session.records import ArmRecord, BatchResult

DATA_BOUND_SHARE = 0.5  # the script's own time is at least half of its step


def script_row(res: BatchResult, compute_median_ms: float | None) -> Json:
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
        "startup_s": (res.first_steps.get(0) or {}).get("startup_s"),
        "loss_curve": [[k, v] for k, v in sorted(res.loss_by_step.items())],
    }


def script_arm(arm: ArmRecord) -> Json:
    """The arm's `script`: what its first round did, and the files its processes wrote."""
    return {
        "notes": arm.script_notes,
        "files": [{"path": p, "bytes": b} for p, b in sorted(arm.script_files.items())],
    }
