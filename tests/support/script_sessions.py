"""A training script's saved session made by hand (config.script set): two arms at one phase
of a sweep, each with its own figures, notes, files and loss curves, the compiled arm
data-bound."""

from __future__ import annotations

from typing import Any


def _script_row(bs: int, compute: float, own: float, data_bound: bool) -> dict[str, Any]:
    """A row; a compiled arm's (data-bound here) with its loss parity run."""
    parity = {
        "status": "pass",
        "steps": 4,
        "rtol": 0.01,
        "atol": 0.001,
        "curves": {"eager": [2.0, 1.5, None, 1.0], "arm": [2.0, 1.5, 1.2, 1.0]},
    }
    return {
        "batch_size": bs,
        "status": "ok",
        "median_ms": compute,
        **({"accuracy": parity} if data_bound else {}),
        "script": {
            "compute_median_ms": compute,
            "own_median_ms": own,
            "step_median_ms": compute + own,
            "own_share": own / (compute + own),
            "data_bound": data_bound,
            "startup_s": 1.25,
            "unit": "tokens",
            "tokens_per_step": 2048,
            "samples_per_step": 8,
            "loss_curve": [[0, 2.1], [1, 1.6], [2, None], [3, 1.1]],
        },
    }


def script_session() -> dict[str, Any]:
    """A script's session of two arms at one phase of a sweep, the compiled one data-bound."""
    arms = [
        {
            "index": 0,
            "name": "eager",
            "backend": "eager",
            "results": [_script_row(8, 10.0, 2.0, False)],
            "script": {
                "notes": [{"kind": "model", "text": "the model is Net"}],
                "files": [{"path": "/w/out/ckpt.pt", "bytes": 1234}],
            },
        },
        {
            "index": 1,
            "name": "aot_eager",
            "backend": "aot_eager",
            "results": [_script_row(8, 4.0, 6.0, True)],
            "script": {"notes": [{"kind": "in_place", "text": "compiled in place"}], "files": []},
        },
    ]
    config = {
        "script": {"path": "/w/train.py", "args": ["--bs={batch_size}"], "sweep": "batch_size"},
        "batch_sizes": [8],
    }
    return {"status": "completed", "baseline": "eager", "config": config, "arms": arms}
