"""Harness overhead, measured side by side in one run.

1. Median step time reported by tcprof (eager arm, worker process, interleaved blocks) against
   a bare hand-written loop of the same training step in a fresh interpreter, for a model whose
   step takes >= 1 ms (the `mlp` example at batch size 256). Rounds alternate bare / tcprof so
   drift hits both alike. Target: within 2%.
2. Per-step cost of our instrumentation for a tiny model (the seed's SimpleModel): the timed
   loop (perf_counter_ns pair, sample list, flush check, batched event writes to a pipe)
   against the same step in a plain for-loop, in one process, alternating. Target: < 20 us.

Run: .venv/bin/python -m bench.engine_overhead [--rounds 5]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import textwrap
from pathlib import Path

from profiler.config import ArmSpec, ModelSource, RunConfig
from profiler.examples import example_path
from profiler.runner import Runner

BARE_LOOP = textwrap.dedent(
    """
    import importlib.util, json, sys, time
    import torch, torch.nn.functional as F
    spec = importlib.util.spec_from_file_location("m", sys.argv[1]); m = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(m)
    torch.manual_seed(0)
    model = m.MLP(); opt = torch.optim.SGD(model.parameters(), lr=0.01)
    bs, n = int(sys.argv[2]), int(sys.argv[3])
    xs = [torch.randn(bs, 256) for _ in range(4)]
    target = torch.randn(bs, 10)
    def step(x):
        out = model(x); loss = F.mse_loss(out, target); loss.backward(); opt.step(); opt.zero_grad(); return loss
    for i in range(6): step(xs[i % 4])
    ms = []
    for i in range(n):
        t0 = time.perf_counter_ns(); step(xs[i % 4]); ms.append((time.perf_counter_ns() - t0) / 1e6)
    ms.sort(); print(json.dumps(ms[len(ms) // 2]))
    """
)


def bare_median(bs: int, steps: int) -> float:
    out = subprocess.run(
        [sys.executable, "-c", BARE_LOOP, str(example_path("mlp")), str(bs), str(steps)],
        capture_output=True, text=True, check=True,
    ).stdout
    return float(out.strip().splitlines()[-1])


def tcprof_median(bs: int, steps: int) -> float:
    cfg = RunConfig(ModelSource(str(example_path("mlp"))), arms=(ArmSpec("eager"),), batch_sizes=(bs,), warmup=5, steps=steps, blocks=1)
    session = Runner(cfg).run().to_dict(include_samples=False)
    return session["arms"][0]["results"][0]["median_ms"]


INSTRUMENTATION = textwrap.dedent(
    """
    import json, os, sys, time
    import torch, torch.nn as nn, torch.nn.functional as F
    from profiler.worker import timed_loop
    from profiler.worker.channel import EventChannel
    from profiler.worker.inputs import Batch, LossOf
    torch.manual_seed(0)
    model = nn.Linear(10, 1); opt = torch.optim.SGD(model.parameters(), lr=0.01)
    batches = [Batch((torch.randn(32, 10),), {}, None) for _ in range(4)]
    loss_of = LossOf(0)
    def step(b):
        out = model(*b.args, **b.kwargs); loss = loss_of(out, b); loss.backward(); opt.step(); opt.zero_grad(); return loss
    r, w = os.pipe()
    import threading
    threading.Thread(target=lambda: [os.read(r, 1 << 16) for _ in iter(int, 1)], daemon=True).start()
    ch = EventChannel(w)
    def flush(start, ms): ch.emit("steps", batch_size=32, phase="measure", start=start, ms=ms)
    n = int(sys.argv[1]); rounds = int(sys.argv[2])
    for i in range(200): step(batches[i % 4])
    bare, ours = [], []
    for _ in range(rounds):
        t0 = time.perf_counter_ns()
        for i in range(n): step(batches[i % 4])
        bare.append((time.perf_counter_ns() - t0) / n / 1e3)
        t0 = time.perf_counter_ns()
        timed_loop.run_cpu(step, batches, n, 0, flush)
        ours.append((time.perf_counter_ns() - t0) / n / 1e3)
    print(json.dumps({"bare_us": bare, "ours_us": ours}))
    """
)


def instrumentation_cost(n: int, rounds: int) -> dict:
    env = dict(os.environ, PYTHONPATH=str(Path(__file__).resolve().parent.parent))
    out = subprocess.run([sys.executable, "-c", INSTRUMENTATION, str(n), str(rounds)], capture_output=True, text=True, check=True, env=env).stdout
    return json.loads(out.strip().splitlines()[-1])


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--batch-size", type=int, default=256)
    parser.add_argument("--steps", type=int, default=200)
    args = parser.parse_args()

    bare, ours = [], []
    for r in range(args.rounds):
        bare.append(bare_median(args.batch_size, args.steps))
        ours.append(tcprof_median(args.batch_size, args.steps))
        print(f"round {r + 1}: bare loop median {bare[-1]:.3f} ms, tcprof median {ours[-1]:.3f} ms, ratio {ours[-1] / bare[-1]:.4f}")
    b, o = statistics.median(bare), statistics.median(ours)
    print(f"harness overhead (mlp, bs={args.batch_size}): bare {b:.3f} ms, tcprof {o:.3f} ms, ratio {o / b:.4f} ({(o / b - 1) * 100:+.2f}%) [target within 2%]")

    cost = instrumentation_cost(20000, args.rounds)
    per_round = [o - b for b, o in zip(cost["bare_us"], cost["ours_us"], strict=True)]
    print(
        f"instrumentation (SimpleModel, bs=32): bare step {statistics.median(cost['bare_us']):.2f} us, "
        f"timed loop {statistics.median(cost['ours_us']):.2f} us, cost per step {statistics.median(per_round):.2f} us "
        f"(rounds: {', '.join(f'{x:.2f}' for x in per_round)}) [target < 20 us]"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
