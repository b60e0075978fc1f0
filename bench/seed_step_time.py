"""Does a round's seed change the MLP example's step time? One process, the built-in `mlp`
example trained with SGD at batch 32 (the default run's shape), its median step for each seed in
turn, several passes: were the seed behind the rounds' disagreement (issue 42), the seeds' medians
would differ within a pass by more than the passes differ.

Run: .venv/bin/python -m bench.seed_step_time [--threads 2] [--passes 3] [--steps 150]
On a quiet machine (2026-12-06 10:08, 2 threads): 4.96-5.07, 4.97-5.19 and 5.54-5.65 ms over six
seeds in three passes (docs/benchmarks.md, "Do two runs agree?").
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time

SEEDS = (0, 983518085, 866814327, 524491808, 1, 7)  # the run's seed and three round seeds of seed 0


def median_step_ms(seed: int, steps: int) -> float:
    import torch

    from tcprof.resources.examples.mlp import MLP

    torch.manual_seed(seed)
    model = MLP()
    opt = torch.optim.SGD(model.parameters(), lr=0.01)
    x, y = torch.randn(32, 256), torch.randint(0, 10, (32,))
    times = []
    for _ in range(steps):
        start = time.perf_counter()
        opt.zero_grad()
        torch.nn.functional.cross_entropy(model(x), y).backward()
        opt.step()
        times.append(time.perf_counter() - start)
    return statistics.median(times[steps // 5 :]) * 1000


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--passes", type=int, default=3)
    parser.add_argument("--steps", type=int, default=150)
    args = parser.parse_args()
    import torch

    torch.set_num_threads(args.threads)
    for n in range(args.passes):
        cells = [f"{seed}: {median_step_ms(seed, args.steps):.2f} ms" for seed in SEEDS]
        print(f"pass {n}  " + "  ".join(cells), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
