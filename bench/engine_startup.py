"""Run start to the first measured eager step on CPU (target < 3 s), from the engine's own
clock: the `t` of the first measured `steps` event of a run with the eager arm.

Run: .venv/bin/python -m bench.engine_startup [--runs 5]
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import threading
import time

from tcprof.profiler.config import ArmSpec, ModelSource, RunConfig
from tcprof.profiler.config.examples import example_path
from tcprof.profiler.process.pool import WorkerPool
from tcprof.profiler.run.runner import Runner


def first_measured_step_s(
    arms: tuple[ArmSpec, ...], pool: WorkerPool | None = None
) -> tuple[float, float]:
    seen: list[float] = []

    def listener(event: dict) -> None:
        if (
            event.get("type") == "steps"
            and event.get("phase") == "measure"
            and event.get("arm") == 0
            and not seen
        ):
            seen.append(time.monotonic())

    cfg = RunConfig(
        ModelSource(str(example_path("simple"))),
        arms=arms,
        batch_sizes=(32,),
        warmup=5,
        steps=20,
        blocks=1,
        replicates=1,  # the start-up of the first round is what is measured
        accuracy=False,
    )
    start = time.monotonic()
    runner = Runner(cfg, listeners=[listener], pool=pool)
    runner.run()
    return seen[0] - start, time.monotonic() - start


SEED_SCRIPT = """
import time
import torch, torch.nn as nn, torch.nn.functional as F
model = nn.Linear(10, 1)
opt = torch.optim.SGD(model.parameters(), lr=0.01)
x, y = torch.randn(32, 10), torch.randn(32, 1)
loss = F.mse_loss(model(x), y); loss.backward(); opt.step(); opt.zero_grad()
print(time.time())
"""


def bare_script_first_step_s() -> float:
    """The floor: a fresh interpreter running the seed's loop to the end of its first step
    (import torch, and the TorchDynamo import any torch.optim optimizer triggers)."""
    start = time.time()
    out = subprocess.run(
        [sys.executable, "-c", SEED_SCRIPT], capture_output=True, text=True, check=True
    ).stdout
    return float(out.strip()) - start


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    floor = [bare_script_first_step_s() for _ in range(args.runs)]
    print(
        f"floor: a bare seed script's first step: median {statistics.median(floor):.2f} s, max {max(floor):.2f} s"
    )
    for arms, label in (
        ((ArmSpec("eager"),), "eager alone"),
        ((ArmSpec("eager"), ArmSpec("aot_eager")), "eager + aot_eager"),
    ):
        firsts = []
        for _ in range(args.runs):
            first, total = first_measured_step_s(arms)
            firsts.append(first)
        print(
            f"run start -> first measured eager step ({label}): median {statistics.median(firsts):.2f} s, "
            f"max {max(firsts):.2f} s over {args.runs} runs [target < 3 s]"
        )
    warm = []
    for _ in range(args.runs):
        pool = WorkerPool(size=1)
        pool.fill()
        while pool.ready_count() < 1:
            threading.Event().wait(0.05)
        try:
            warm.append(first_measured_step_s((ArmSpec("eager"),), pool)[0])
        finally:
            pool.close()
    print(
        f"run start -> first measured eager step with a pre-warmed worker (the app's pool): "
        f"median {statistics.median(warm):.2f} s, max {max(warm):.2f} s [target < 3 s]"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
