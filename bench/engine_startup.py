"""Run start to the first measured eager step on CPU (target < 3 s), from the engine's own
clock: the `t` of the first measured `steps` event of a run with the eager arm.

Run: .venv/bin/python -m bench.engine_startup [--runs 5]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time

from profiler.config import ArmSpec, ModelSource, RunConfig
from profiler.examples import example_path
from profiler.runner import Runner


def first_measured_step_s(arms: tuple[ArmSpec, ...]) -> tuple[float, float]:
    seen: list[float] = []

    def listener(event: dict) -> None:
        if event.get("type") == "steps" and event.get("phase") == "measure" and event.get("arm") == 0 and not seen:
            seen.append(time.monotonic())

    cfg = RunConfig(ModelSource(str(example_path("simple"))), arms=arms, batch_sizes=(32,), warmup=5, steps=20, blocks=1)
    start = time.monotonic()
    runner = Runner(cfg, listeners=[listener])
    runner.run()
    return seen[0] - start, time.monotonic() - start


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    for arms, label in (((ArmSpec("eager"),), "eager alone"), ((ArmSpec("eager"), ArmSpec("aot_eager")), "eager + aot_eager")):
        firsts = []
        for _ in range(args.runs):
            first, total = first_measured_step_s(arms)
            firsts.append(first)
        print(
            f"run start -> first measured eager step ({label}): median {statistics.median(firsts):.2f} s, "
            f"max {max(firsts):.2f} s over {args.runs} runs [target < 3 s]"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
