"""Session dicts folded from hand-made events, for unit tests that need no worker."""

from __future__ import annotations

from typing import Any

from tcprof.profiler.config import ArmSpec, ModelSource, RunConfig
from tcprof.profiler.session.fold import SessionFold

ENV = {
    "torch": "2.13.0+cpu",
    "python": "3.11.7",
    "platform": "Linux",
    "device": "cpu",
    "device_name": "Test CPU",
    "backends": ["aot_eager", "eager", "inductor"],
}


def synthetic_session(
    path: str = "/models/model.py",
    arms: tuple[ArmSpec, ...] = (ArmSpec("eager"), ArmSpec("aot_eager")),
    batch_sizes: tuple[int, ...] = (8,),
    source: dict[str, Any] | None = None,
    model_info: dict[str, Any] | None = None,
    reason: str = "Data-dependent branching",
    log_text: str = "hello from the model",
    error: dict[str, Any] | None = None,
    ms: list[float] | None = None,
    debug: dict[str, Any] | None = None,
    compiles: list[dict[str, Any]] | None = None,
    first_step_ms: tuple[float, ...] | None = None,
    rounds: dict[int, list[list[float]]] | None = None,
) -> dict[str, Any]:
    """`compiles` replace the compiled arms' one recompile; `first_step_ms` is per arm.
    `rounds`: an arm's measured steps per round (arm index -> one list per round), for
    sessions of several rounds; by default every arm measures `ms` in one round."""
    cfg = RunConfig(
        source=ModelSource(**(source or {"path": path})),
        arms=arms,
        batch_sizes=batch_sizes,
        warmup=2,
        steps=4,
        **({"replicates": max(len(r) for r in rounds.values())} if rounds else {}),
    ).to_dict()
    if debug:
        cfg["debug"].update(debug)
    s = SessionFold()
    s.apply({"type": "run_start", "config": cfg, "wall_time": 1_700_000_000.0})
    info = model_info or {"model": "Net()", "params": 11, "input": "(B, 10) float"}
    for i, arm in enumerate(arms):
        s.apply({"type": "hello", "arm": i, **ENV})
        s.apply({"type": "loaded", "arm": i, "input_source": "inferred", **info})
        for bs in batch_sizes:
            s.apply(
                {
                    "type": "first_step",
                    "arm": i,
                    "batch_size": bs,
                    "ms": first_step_ms[i] if first_step_ms else 50.0,
                    "loss": 1.0,
                    "grad_norm": 2.0,
                }
            )
            s.apply(
                {
                    "type": "steps",
                    "arm": i,
                    "batch_size": bs,
                    "phase": "warmup",
                    "start": 1,
                    "ms": [2.0, 2.1],
                }
            )
            s.apply(
                {
                    "type": "steps",
                    "arm": i,
                    "batch_size": bs,
                    "phase": "measure",
                    "start": 3,
                    "ms": (rounds or {}).get(i, [ms or [1.0 + 0.1 * i, 1.1, 1.05, 0.95]])[0],
                }
            )
            for rep, later in enumerate((rounds or {}).get(i, [])[1:], start=1):
                s.apply(
                    {
                        "type": "steps",
                        "arm": i,
                        "batch_size": bs,
                        "phase": "measure",
                        "start": 3,
                        "replicate": rep,
                        "ms": later,
                    }
                )
            s.apply(
                {
                    "type": "memory",
                    "arm": i,
                    "batch_size": bs,
                    "step": 6,
                    "rss_mb": 300.0 + i,
                    "cuda_alloc_mb": None,
                    "cuda_reserved_mb": None,
                }
            )
            if arm.compiled:
                s.apply(
                    {
                        "type": "graph_break",
                        "arm": i,
                        "batch_size": bs,
                        "step": 0,
                        "reason": reason,
                        "file": path,
                        "line": 7,
                        "explanation": "because " + reason,
                        "hints": [reason],
                    }
                )
                for c in compiles or [
                    {
                        "step": 4,
                        "kind": "recompile",
                        "reason": reason,
                        "frame": "forward",
                        "file": path,
                        "line": 5,
                        "seconds": 0.2,
                    }
                ]:
                    s.apply({"type": "compile", "arm": i, "batch_size": bs, **c})
            s.apply(
                {
                    "type": "bs_done",
                    "arm": i,
                    "batch_size": bs,
                    "peak_rss_mb": 300.0 + i,
                    "last_loss": 0.9,
                }
            )
        s.apply({"type": "log", "arm": i, "stream": "stdout", "text": log_text, "t": 1.0})
    if error:
        s.apply({"type": "error", "arm": len(arms) - 1, **error})
    s.apply({"type": "run_end", "status": "completed", "wall_time": 1_700_000_030.0})
    return s.to_dict()


# An evaluation under no_grad before training (as nanoGPT's train.py), the training step's
# recompile for grad mode and an evaluation's recompile for its batch of 5: 4.00 s of compiles,
# of which 1.00 s inside the first step. With first steps of 50 ms (eager) and 1250 ms, the
# first step's excess over eager's is about 1.20 s: 0.20 s beyond compiling.
EVAL_FIRST_COMPILES: list[dict[str, Any]] = [
    {
        "step": 0,
        "when": "before_training",
        "at_step": 0,
        "kind": "first",
        "frame": "forward",
        "file": "/models/model.py",
        "line": 22,
        "site_file": "/scripts/eval_first.py",
        "site_line": 30,
        "grad_mode": False,
        "shapes": [[16, 8]],
        "seconds": 2.0,
    },
    {
        "step": 0,
        "when": "step",
        "at_step": 0,
        "kind": "recompile",
        "reason": "GLOBAL_STATE changed: grad_mode ",
        "frame": "forward",
        "file": "/models/model.py",
        "line": 22,
        "site_file": "/scripts/eval_first.py",
        "site_line": 40,
        "grad_mode": True,
        "shapes": [[16, 8]],
        "seconds": 0.8,
        "backward_s": 0.2,
    },
    {
        "step": 4,
        "when": "evaluation",
        "at_step": 4,
        "kind": "recompile",
        "reason": "tensor 'x' size mismatch at index 0. expected 16, actual 5",
        "frame": "forward",
        "file": "/models/model.py",
        "line": 22,
        "site_file": "/scripts/eval_first.py",
        "site_line": 30,
        "grad_mode": False,
        "shapes": [[5, 8]],
        "seconds": 1.0,
    },
]


def eval_first_session() -> dict[str, Any]:
    """A session whose compiled arm compiled before training, in its first step and in an
    evaluation between steps (EVAL_FIRST_COMPILES)."""
    return synthetic_session(compiles=EVAL_FIRST_COMPILES, first_step_ms=(50.0, 1250.0))
