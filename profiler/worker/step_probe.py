"""A quick price of the model's eager training step, for the estimate of a run that has no
earlier session to price it from: a few eager steps (forward, loss, backward, SGD) at two small
batch sizes, timed after one untimed step each, fitted as a fixed cost plus a cost per sample.
Each size is timed with torch's threads and with one, and the faster stands: beside a busy
program, small steps with two threads waited for a descheduled thread at every operator (280 ms
a step where the run's own steps took 15-48 ms), and one thread does not wait.
The first untimed step also counts the operators torch dispatches (forward and backward): what
a compile traces and lowers, so the compile's guess grows with it (profiler/run/estimate.py).
And it reads the machine's pace for Python-bound work, which compiles and worker start-ups are:
a fixed module traced by torch.fx, the mean over about 120 ms (a run on a busy stretch of a
shared machine took twice as long as the same run on a quiet one: docs/benchmarks.md; the mean
over several of the scheduler's slices, not the fastest trace or the median, since a run pays
its share of the machine, not its best moments).

It runs in the inspection worker, on CPU, right after the model is built, and is bounded: it
stops at the first size whose step takes longer than `BUDGET_S` (that size's time stands alone).
A step the model cannot take is not an error here: the estimate falls back to its guess and
the run itself reports the problem."""

from __future__ import annotations

import gc
import time
from collections.abc import Callable
from types import ModuleType
from typing import Any

import torch
from torch import nn
from torch.utils._python_dispatch import TorchDispatchMode

from tcprof.profiler.worker import inputs

SIZES = (2, 8)
STEPS = 4
BUDGET_S = 1.0  # one step longer than this: no further size is timed
PACE_REPEATS = 40  # traces of the pace's module: about 3 ms each on this project's machine
PACE_WARM = 3  # untimed first: a fresh process's first traces took twice as long


def pace_ms() -> float:
    """Milliseconds to trace and recompile a fixed 16-module network with torch.fx: Python-bound
    graph work, like a compile's, on this machine as it is now (the mean of PACE_REPEATS)."""
    model = nn.Sequential(*[m for _ in range(8) for m in (nn.Linear(8, 8), nn.ReLU())])
    for _ in range(PACE_WARM):  # torch.fx's and the interpreter's first uses, untimed
        torch.fx.symbolic_trace(model).recompile()
    collecting = gc.isenabled()
    gc.disable()  # the machine's pace, not a collection that these objects happen to trigger
    try:
        began = time.perf_counter()
        for _ in range(PACE_REPEATS):
            torch.fx.symbolic_trace(model).recompile()
        return round((time.perf_counter() - began) / PACE_REPEATS * 1000.0, 3)
    finally:
        if collecting:
            gc.enable()


class _OpCount(TorchDispatchMode):
    """Counts the operators dispatched while it is on (each runs as it would without it)."""

    def __init__(self) -> None:
        super().__init__()  # type: ignore[no-untyped-call]  # torch's is untyped
        self.ops = 0

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):  # type: ignore[no-untyped-def]
        self.ops += 1
        return func(*args, **(kwargs or {}))


def _counted(step: Callable[[], None], out: dict[str, Any]) -> bool:
    """Take one step with its operators counted into out['ops']; False (and no count) where a
    model's step does not run under a dispatch mode, which its plain steps may still do."""
    try:
        with _OpCount() as count:
            step()
    except Exception:
        return False
    out["ops"] = count.ops
    return True


def _fastest(step: Callable[[], None]) -> float:
    """The fastest of a few steps, in seconds: a busy machine only adds time."""
    times = []
    for _ in range(STEPS):
        began = time.perf_counter()
        step()
        times.append(time.perf_counter() - began)
    return min(times)


def probe_step(model: nn.Module, module: ModuleType, plan: inputs.InputPlan) -> dict[str, Any]:
    """{'ms_at': {2: 0.41, 8: 0.93}, 'modules': 13, 'ops': 86, 'pace_ms': 2.9}: eager step
    milliseconds per batch size (possibly only the first size), the model's leaf modules, the
    operators one training step dispatches (a compile's size) and the machine's pace."""
    leaves = sum(1 for m in model.modules() if not any(True for _ in m.children()))
    out: dict[str, Any] = {"modules": leaves, "ms_at": {}, "pace_ms": pace_ms()}
    optimizer = torch.optim.SGD(model.parameters(), lr=0.0)  # lr 0: the weights stay as built
    loss_of = inputs.LossOf(seed=0)
    device = torch.device("cpu")
    try:
        steps: dict[int, Callable[[], None]] = {}
        for bs in SIZES:  # every size's first step first: lazy initialisation, allocation
            batch = inputs.make_batches(plan, model, module, bs, device, seed=0, count=1)[0]

            def step(batch: inputs.Batch = batch) -> None:
                loss = loss_of(model(*batch.args, **batch.kwargs), batch)
                loss.backward()
                optimizer.step()
                optimizer.zero_grad(set_to_none=True)

            began = time.perf_counter()
            if steps or not _counted(step, out):  # the first step of all is counted, untimed
                step()
            steps[bs] = step
            if time.perf_counter() - began > BUDGET_S:
                break
        threads = torch.get_num_threads()
        for bs, timed in steps.items():
            fastest = _fastest(timed)
            if threads > 1 and fastest <= BUDGET_S:
                torch.set_num_threads(1)
                try:
                    fastest = min(fastest, _fastest(timed))
                finally:
                    torch.set_num_threads(threads)
            out["ms_at"][bs] = round(fastest * 1000.0, 4)
            if fastest > BUDGET_S:
                break
    except Exception as exc:  # the run reports it; the estimate guesses
        out["error"] = f"{type(exc).__name__}: {exc}"[:200]
    return out
