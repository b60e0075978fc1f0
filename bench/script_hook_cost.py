"""What tcprof's hooks add to one step of a script, measured in one process where the machine's
drift between processes cannot hide it.

A script's process runs its steps under ScriptHooks (profiler/worker/script_hooks.py): the
model's calls go through tcprof's dispatcher (a clock mark at the first forward of a step), the
loss passes a wrapped `torch.autograd.backward`, and the optimizer's step post-hook ends the
step (a clock mark, the step's marks handed on). This runs three identical models (same
weights, same batches) in blocks of `--steps` steps, rotated block by block: `plain` and its
twin `plain2` without hooks (the A/A control: their ratio's truth is 1.00), and `hooked` under
the real ScriptHooks with the real StepTracker and ScriptCompiler of an eager arm, whose
per-step marks are kept as the driver keeps them. Each block's median step is compared with
the neighbouring plain block's, so the overhead is a ratio of adjacent blocks.

The goal (issue 21): within 2% for steps of 1 ms and more; `--width` sets the step's length.

Run: .venv/bin/python -m bench.script_hook_cost [--blocks 40] [--steps 50] [--width 256]
"""

from __future__ import annotations

import argparse
import math
import statistics
import time
from typing import Any

import torch
from torch import nn

from tcprof.profiler.analysis.stats import t_quantile_975
from tcprof.profiler.config import ArmSpec
from tcprof.profiler.worker.script_compile import ScriptCompiler
from tcprof.profiler.worker.script_hooks import ScriptHooks
from tcprof.profiler.worker.script_steps import StepTracker


def build(width: int) -> tuple[nn.Module, torch.optim.Optimizer]:
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(width, width), nn.ReLU(), nn.Linear(width, width))
    return model, torch.optim.AdamW(model.parameters(), lr=1e-3)


def block(model: nn.Module, opt: torch.optim.Optimizer, data: list[Any], n: int) -> list[float]:
    """n steps as a user's script times them: perf_counter from forward to the step's end."""
    times = []
    for i in range(n):
        x = data[i % len(data)]
        t0 = time.perf_counter()
        loss = model(x).pow(2).mean()
        loss.backward()
        opt.step()
        times.append((time.perf_counter() - t0) * 1000.0)
        opt.zero_grad()
    return times


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--blocks", type=int, default=40)
    parser.add_argument("--steps", type=int, default=50)
    parser.add_argument("--width", type=int, default=256)
    parser.add_argument("--batch", type=int, default=64)
    parser.add_argument("--threads", type=int, default=1)
    args = parser.parse_args()
    torch.set_num_threads(args.threads)
    data = [torch.randn(args.batch, args.width) for _ in range(8)]
    plain, plain_opt = build(args.width)
    plain2, plain2_opt = build(args.width)
    marks: list[Any] = []
    tracker = StepTracker("optimizer", marks.append)
    compiler = ScriptCompiler(ArmSpec("eager"), tracker, torch.compile, lambda note: None)
    with ScriptHooks(tracker, compiler):  # the optimizer made under the hooks: model adopted
        hooked, hooked_opt = build(args.width)
    assert compiler.model is hooked, "the hooks did not find the model"
    runs = {
        "plain": lambda: block(plain, plain_opt, data, args.steps),
        "plain2": lambda: block(plain2, plain2_opt, data, args.steps),
        "hooked": lambda: hooked_block(),
    }

    def hooked_block() -> list[float]:
        with ScriptHooks(tracker, compiler):
            times = block(hooked, hooked_opt, data, args.steps)
        marks.clear()  # read after the block, as the driver reads them
        return times

    for run in runs.values():  # warm up
        run()
    medians: dict[str, list[float]] = {name: [] for name in runs}
    names = list(runs)
    for b in range(args.blocks):
        for name in names[b % 3 :] + names[: b % 3]:  # each first, second and third in turn
            medians[name].append(statistics.median(runs[name]()))
    steps = tracker.index
    print(
        f"{args.blocks} blocks of {args.steps} steps each, width {args.width}, batch "
        f"{args.batch}, {args.threads} thread(s); the hooks counted {steps} steps"
    )
    for name in ("hooked", "plain2"):
        logs = [math.log(a / p) for a, p in zip(medians[name], medians["plain"], strict=True)]
        mean = statistics.fmean(logs)
        half = t_quantile_975(len(logs) - 1) * statistics.stdev(logs) / math.sqrt(len(logs))
        print(
            f"{name:7s} against plain: {(math.exp(mean) - 1) * 100:+.2f}% "
            f"[{(math.exp(mean - half) - 1) * 100:+.2f}%, {(math.exp(mean + half) - 1) * 100:+.2f}%]"
            f" (median step: plain {statistics.median(medians['plain']):.3f} ms, {name} "
            f"{statistics.median(medians[name]):.3f} ms)"
        )


if __name__ == "__main__":
    main()
