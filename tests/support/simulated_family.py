"""A run's family of comparisons made by construction: each arm's process median in each round
(known speedups, shared round shifts), folded through the real SessionFold into session.json, so
tests of the simultaneous intervals see what every view sees. No worker, no torch."""

from __future__ import annotations

from typing import Any

import numpy as np

from tcprof.profiler.config import ArmSpec, ModelSource, RunConfig
from tcprof.profiler.session.fold import SessionFold

BACKENDS = ("inductor", "aot_eager", "cudagraphs", "aot_eager_decomp_partition", "tvm", "onnxrt")


def family_session(
    medians: np.ndarray, batch_sizes: tuple[int, ...] = (8,), **options: Any
) -> dict[str, Any]:
    """session.json of a run whose arm a, round r, batch size b (index) measured steps of
    `medians[a, r, b]` ms (arm 0 the eager baseline); every compiled arm compiles for 2 s.
    `options`: more of the run's RunConfig (stop_early=True: intervals at the stopping level)."""
    arms, rounds, sizes = medians.shape
    assert sizes == len(batch_sizes)
    cfg = RunConfig(
        ModelSource("m.py"),
        arms=(ArmSpec("eager"), *(ArmSpec(b) for b in BACKENDS[: arms - 1])),
        batch_sizes=batch_sizes,
        steps=4,
        replicates=rounds,
        **options,
    )
    events: list[dict[str, Any]] = [
        {"type": "run_start", "config": cfg.to_dict(), "wall_time": 1.0}
    ]
    for rep in range(rounds):
        for arm in range(arms):
            events.append({"type": "arm_start", "arm": arm, "replicate": rep, "cache": None})
            for b, bs in enumerate(batch_sizes):
                ms = float(medians[arm, rep, b])
                events += _process(arm, rep, bs, ms)
    events.append({"type": "run_end", "status": "completed", "wall_time": 2.0})
    session = SessionFold()
    for e in events:
        session.apply(e)
    return session.to_dict(include_samples=False)


def _process(arm: int, rep: int, bs: int, ms: float) -> list[dict[str, Any]]:
    where = {"arm": arm, "replicate": rep, "batch_size": bs}
    out: list[dict[str, Any]] = [{"type": "first_step", **where, "ms": ms + 50.0}]
    if arm:
        out.append(
            {"type": "compile", **where, "step": 0, "kind": "first", "seconds": 2.0,
             "fx_cache_hits": 0, "fx_cache_misses": 1}
        )  # fmt: skip
    out += [
        {"type": "steps", **where, "phase": "measure", "block": 0, "start": 1, "ms": [ms] * 4},
        {"type": "block_done", **where, "block": 0, "steps": 4, "quiet": True},
        {"type": "bs_done", **where, "steady_peak_mb": 1.0},
    ]
    return out


def random_family(
    rng: np.random.Generator, arms: int, rounds: int, sizes: int = 1, noise: float = 0.03
) -> np.ndarray:
    """Process medians with a shift per round shared by every arm, each process's own noise,
    and each compiled arm's true speedup drawn near 1 (so some differences sit at the edge of
    95% and of the family-wise level)."""
    truth = np.exp(rng.choice([0.0, 0.02, -0.02, 0.04, -0.04, 0.1], size=(arms, 1, sizes)))
    truth[0] = 1.0
    shift = np.exp(rng.normal(0, 0.05, size=(1, rounds, 1)))
    own = np.exp(rng.normal(0, noise, size=(arms, rounds, sizes)))
    return 10.0 * shift * own / truth
