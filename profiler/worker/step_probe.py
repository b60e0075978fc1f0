"""A quick price of the model's eager training step, for the estimate of a run that has no
earlier session to price it from: a few eager steps (forward, loss, backward, SGD) at two small
batch sizes, timed after one untimed step each, fitted as a fixed cost plus a cost per sample.

It runs in the inspection worker, on CPU, right after the model is built, and is bounded: it
stops at the first size whose step takes longer than `BUDGET_S` (that size's time stands alone).
A step the model cannot take is not an error here: the estimate falls back to its guess and
the run itself reports the problem."""

from __future__ import annotations

import time
from types import ModuleType
from typing import Any

import torch
from torch import nn

from tcprof.profiler.worker import inputs

SIZES = (2, 8)
STEPS = 4
BUDGET_S = 1.0  # one step longer than this: no further size is timed


def probe_step(model: nn.Module, module: ModuleType, plan: inputs.InputPlan) -> dict[str, Any]:
    """{'ms_at': {2: 0.41, 8: 0.93}, 'modules': 13}: eager step milliseconds per batch size
    (possibly only the first size), and the model's leaf modules (a compile's size, roughly)."""
    leaves = sum(1 for m in model.modules() if not any(True for _ in m.children()))
    out: dict[str, Any] = {"modules": leaves, "ms_at": {}}
    optimizer = torch.optim.SGD(model.parameters(), lr=0.0)  # lr 0: the weights stay as built
    loss_of = inputs.LossOf(seed=0)
    device = torch.device("cpu")
    try:
        steps = {}
        for bs in SIZES:  # every size's first step first: lazy initialisation, allocation
            batch = inputs.make_batches(plan, model, module, bs, device, seed=0, count=1)[0]

            def step(batch: inputs.Batch = batch) -> None:
                loss = loss_of(model(*batch.args, **batch.kwargs), batch)
                loss.backward()
                optimizer.step()
                optimizer.zero_grad(set_to_none=True)

            began = time.perf_counter()
            step()
            steps[bs] = step
            if time.perf_counter() - began > BUDGET_S:
                break
        for bs, step in steps.items():
            times = []
            for _ in range(STEPS):  # the fastest of a few: a busy machine only adds time
                began = time.perf_counter()
                step()
                times.append(time.perf_counter() - began)
            out["ms_at"][bs] = round(min(times) * 1000.0, 4)
            if min(times) > BUDGET_S:
                break
    except Exception as exc:  # the run reports it; the estimate guesses
        out["error"] = f"{type(exc).__name__}: {exc}"[:200]
    return out
