"""The collection before each timed block, in a worker-like process (torch, TorchDynamo, a small
model after its first steps, compiled or not): its milliseconds when the heap is thawed after
each block (the worker before 2026-12-06's third sitting) and when it stays frozen (after).

Run: .venv/bin/python -m bench.block_collector [inductor|aot_eager|none]
"""

from __future__ import annotations

import gc
import sys
import time

import torch


def main() -> None:
    backend = sys.argv[1] if len(sys.argv) > 1 else "inductor"
    model = torch.nn.Sequential(torch.nn.Linear(10, 10), torch.nn.ReLU(), torch.nn.Linear(10, 1))
    optimizer = torch.optim.SGD(model.parameters(), lr=0.01)
    runner = model if backend == "none" else torch.compile(model, backend=backend)

    def steps(n: int) -> None:
        for _ in range(n):
            runner(torch.randn(32, 10)).pow(2).mean().backward()
            optimizer.step()
            optimizer.zero_grad()

    steps(3)
    print(f"{backend}: {len(gc.get_objects()):,} tracked objects")
    for thaw in (True, False):
        times = []
        for _ in range(5):
            start = time.perf_counter()
            gc.collect()
            times.append(round((time.perf_counter() - start) * 1e3, 1))
            gc.freeze()
            gc.disable()
            steps(50)  # the block
            gc.enable()
            if thaw:
                gc.unfreeze()
        print(
            f"  collect, heap {'thawed after' if thaw else 'kept frozen across'} blocks: {times} ms"
        )
        gc.unfreeze()


if __name__ == "__main__":
    main()
