"""A 2-rank DDP arm's step time under the harness against a bare torchrun script of the same step.

The harness side is `tcprof run --nproc 2 --parallel ddp` (eager, the `mlp` example): its
headline median, per step the slowest rank. The bare side is this file run by torchrun itself
(`--bare`): the same model, batch size, optimizer, seeds and threads per rank, DDP, timed with
perf_counter around each step; per step the slowest rank, then the median. The two alternate for
a few rounds (the machine drifts between processes), and the ratio of their medians is printed.
Target: within 3%.

Run: .venv/bin/python -m bench.distributed_overhead [--rounds 3] [--steps 200]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

BATCH = 64
NPROC = 2


def bare(steps: int, warmup: int) -> None:
    """One rank of the bare script (started by torchrun); rank 0 prints the step medians."""
    import time

    import torch
    import torch.distributed as dist
    import torch.nn.functional as F
    from torch.nn.parallel import DistributedDataParallel

    from tcprof.profiler.config import resolve_threads
    from tcprof.profiler.config.examples import example_path
    from tcprof.profiler.worker.model_source import build_model, import_file

    dist.init_process_group("gloo")
    rank = dist.get_rank()
    torch.set_num_threads(max(1, resolve_threads() // NPROC))
    torch.manual_seed(0)
    model, _ = build_model(import_file(str(example_path("mlp"))), None, None)
    model = DistributedDataParallel(model.train())
    opt = torch.optim.SGD(model.parameters(), lr=0.01)
    gen = torch.Generator().manual_seed(rank)
    batches = [torch.randn(BATCH, 256, generator=gen) for _ in range(4)]
    target = torch.randn(BATCH, 10, generator=torch.Generator().manual_seed(7919 * BATCH))
    times = []
    for i in range(warmup + steps):
        t0 = time.perf_counter_ns()
        loss = F.mse_loss(model(batches[i % 4]), target)
        loss.backward()
        opt.step()
        opt.zero_grad()
        times.append((time.perf_counter_ns() - t0) / 1e6)
    mine = torch.tensor(times[warmup:])
    gathered = [torch.zeros_like(mine) for _ in range(NPROC)]
    dist.all_gather(gathered, mine)
    if rank == 0:
        slowest = torch.stack(gathered).max(dim=0).values.tolist()
        print(json.dumps({"median_ms": statistics.median(slowest)}))
    dist.destroy_process_group()


def harness_median(steps: int, warmup: int) -> float:
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "run"
        subprocess.run(
            [sys.executable, "-m", "tcprof.profiler", "run", "--example", "mlp", "--arms", "eager"]
            + ["--nproc", str(NPROC), "--parallel", "ddp", "--batch-sizes", str(BATCH)]
            + ["--steps", str(steps), "--warmup", str(warmup), "--replicates", "1"]
            + ["--no-accuracy", "--quiet", "--out", str(out)],
            check=True,
            stdout=subprocess.DEVNULL,
        )
        session = json.loads((out / "session.json").read_text())
        return session["arms"][0]["results"][0]["median_ms"]


def bare_median(steps: int, warmup: int) -> float:
    env = {**os.environ, "OMP_NUM_THREADS": "1"}
    done = subprocess.run(
        [sys.executable, "-m", "torch.distributed.run", "--standalone"]
        + ["--nproc-per-node", str(NPROC), "-m", "bench.distributed_overhead", "--bare"]
        + ["--steps", str(steps), "--warmup", str(warmup)],
        check=True,
        capture_output=True,
        text=True,
        env=env,
    )
    line = [ln for ln in done.stdout.splitlines() if ln.startswith("{")][-1]
    return json.loads(line)["median_ms"]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--steps", type=int, default=200)
    parser.add_argument("--warmup", type=int, default=20)
    parser.add_argument("--bare", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.bare:
        bare(args.steps, args.warmup)
        return 0
    ratios = []
    for _ in range(args.rounds):
        ours, theirs = harness_median(args.steps, args.warmup), bare_median(args.steps, args.warmup)
        ratios.append(ours / theirs)
        print(f"harness {ours:.3f} ms, bare torchrun {theirs:.3f} ms: x{ours / theirs:.3f}")
    print(
        f"median ratio over {args.rounds} rounds: {statistics.median(ratios):.3f} (target <= 1.03)"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
