"""Does the machine's own speed move, and does the speedup move with it? One process times a
fixed matrix product (the reading each timed block takes, worker/machine_speed.py), then an
eager and a `torch.compile`d MLP training step in alternating blocks, and prints each cycle's
product time beside the two blocks' medians and their ratio.

Run: .venv/bin/python -m bench.machine_speed [--seconds 50] [--backend inductor] [--threads 2]
On the quiet machine (2026-12-06 12:39): the product 196-213 us and the ratio 1.04-1.12 for 25
cycles, then the product 120-260 us from one second to the next and the ratio 0.81-1.41
(docs/benchmarks.md, "The machine's own speed").
"""

from __future__ import annotations

import argparse
import copy
import statistics
import sys
import time
from collections.abc import Callable


def _block_ms(fn: Callable[[], object], seconds: float) -> float:
    times = []
    began = time.perf_counter()
    while time.perf_counter() - began < seconds:
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return statistics.median(times) * 1000


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=50.0)
    parser.add_argument("--backend", default="inductor")
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--block-s", type=float, default=0.4)
    args = parser.parse_args()
    import torch

    from tcprof.profiler.worker.machine_speed import reference_us
    from tcprof.resources.examples.mlp import MLP

    torch.set_num_threads(args.threads)
    torch.manual_seed(0)
    eager_model = MLP()
    compiled_model = copy.deepcopy(eager_model)
    x, y = torch.randn(32, 256), torch.randint(0, 10, (32,))

    def stepper(model: torch.nn.Module) -> Callable[[], None]:
        opt = torch.optim.SGD(model.parameters(), lr=0.01)

        def step() -> None:
            opt.zero_grad()
            torch.nn.functional.cross_entropy(model(x), y).backward()
            opt.step()

        return step

    eager = stepper(eager_model)
    compiled = torch.compile(stepper(compiled_model), backend=args.backend)
    for _ in range(5):
        eager()
        compiled()
    ends = time.monotonic() + args.seconds
    while time.monotonic() < ends:
        before = reference_us()
        e = _block_ms(eager, args.block_s)
        c = _block_ms(compiled, args.block_s)
        after = reference_us()
        print(
            f"product {before:.0f}/{after:.0f} us  eager {e:.2f} ms  compiled {c:.2f} ms  "
            f"ratio {e / c:.3f}",
            flush=True,
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
