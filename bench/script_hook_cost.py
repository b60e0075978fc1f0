"""What tcprof's hooks add to one step of a script, measured in one process where the machine's
drift between processes cannot hide it.

A script's process runs its steps under ScriptHooks (profiler/worker/script/hooks.py): the
model's calls go through tcprof's dispatcher (a clock mark at the first forward of a step), the
loss passes a wrapped `torch.autograd.backward`, and the optimizer's step post-hook ends the
step (a clock mark, the step's marks handed on). One model is adopted by the real ScriptHooks, StepTracker and ScriptCompiler of an eager arm;
its blocks take turns, rotated block by block, `hooked` (under the hooks, its calls through the
dispatcher, its per-step marks kept as the driver keeps them) and `bare` (the same model, its
dispatcher taken off, no hooks), so the two differ by the hooks alone; `twin`, a second model
with the same weights and no hooks, against `bare` is the A/A control of the method (the truth
1.00, up to what two instances of a model differ by). Each block's median step is compared with
the neighbouring `bare` block's.

The goal (issue 21): within 2% for steps of 1 ms and more; `--width` sets the step's length.
The hooks do no work that grows with the step (clock marks, a detach, list appends, one
dispatcher call), so their cost is best read at a tiny width (`--width 8 --batch 1`), where a
step is mostly Python and the block medians are steady, as microseconds a step.

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
from tcprof.profiler.worker.script.compiles import ScriptCompiler
from tcprof.profiler.worker.script.hooks import ScriptHooks
from tcprof.profiler.worker.script.steps import StepTracker


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
    twin, twin_opt = build(args.width)
    marks: list[Any] = []
    tracker = StepTracker("optimizer", marks.append)
    compiler = ScriptCompiler(ArmSpec("eager"), tracker, torch.compile, lambda note: None)
    with ScriptHooks(tracker, compiler):  # the optimizer made under the hooks: model adopted
        model, opt = build(args.width)
    assert compiler.model is model, "the hooks did not find the model"
    dispatch = model._compiled_call_impl

    def hooked_block() -> list[float]:
        model._compiled_call_impl = dispatch
        with ScriptHooks(tracker, compiler):
            times = block(model, opt, data, args.steps)
        marks.clear()  # read after the block, as the driver reads them
        return times

    def bare_block() -> list[float]:
        model._compiled_call_impl = None  # nn.Module's own call: no dispatcher
        return block(model, opt, data, args.steps)

    runs = {
        "bare": bare_block,
        "twin": lambda: block(twin, twin_opt, data, args.steps),
        "hooked": hooked_block,
    }

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
    for name in ("hooked", "twin"):
        logs = [math.log(a / p) for a, p in zip(medians[name], medians["bare"], strict=True)]
        mean = statistics.fmean(logs)
        half = t_quantile_975(len(logs) - 1) * statistics.stdev(logs) / math.sqrt(len(logs))
        print(
            f"{name:7s} against bare: {(math.exp(mean) - 1) * 100:+.2f}% "
            f"[{(math.exp(mean - half) - 1) * 100:+.2f}%, {(math.exp(mean + half) - 1) * 100:+.2f}%]"
            f" (median step: bare {statistics.median(medians['bare']):.3f} ms, {name} "
            f"{statistics.median(medians[name]):.3f} ms)"
        )
    diffs = [(h - b) * 1000.0 for h, b in zip(medians["hooked"], medians["bare"], strict=True)]
    print(
        f"the hooks add {statistics.median(diffs):+.1f} µs a step (median over blocks of hooked "
        "minus the adjacent bare block): their work is a fixed number of calls per step, so at a "
        "tiny width this is their cost, and its share of a 1 ms step is that over 1,000 µs"
    )


if __name__ == "__main__":
    main()
