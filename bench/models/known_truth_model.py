"""A model whose compiled arm's speedup is fixed by construction (bench/known_truth.py).

Importing this file registers torch.compile backends `repeat1`, `repeat2` and `repeat3`: each
runs the graph dynamo captured k times (the mean of the k outputs for k > 1), so the forward and
the backward both do k times eager's work while the gradients, the loss and the training stay
exactly eager's (the accuracy check passes).

The truth is 1/k only where the work that is not repeated is negligible, so the model is built
for that: almost all of a step is inside the captured graph, `DEPTH` matmul-and-tanh layers
sharing one small square weight, and what is outside it is a handful of ops on the (batch, 1)
output (the loss, the mean of the k outputs, their backward) and an optimizer step over 16,384
parameters. What remains, dynamo's own per-call cost (guards, the graph module's call), is
measured by `repeat1` against eager (r1) in one process: were the rest free, repeat2's truth
would be r1 / (1 + r1), whatever the machine's state, which moves the graph's work alike. An
earlier version (three wide Linear layers, a 384-wide output) left 14% of the step unrepeated
and 10% to dynamo: its truth moved by 5% with the machine's speed (docs/benchmarks.md).
"""

from __future__ import annotations

import math
from typing import Any

import torch
import torch.nn as nn
from torch._dynamo import list_backends, register_backend

WIDTH = 128
DEPTH = 8


def repeat_backend(k: int) -> Any:
    def backend(gm: torch.fx.GraphModule, example_inputs: list[torch.Tensor]) -> Any:
        if k == 1:
            return gm.forward

        def run(*args: Any) -> Any:
            outs = [gm(*args) for _ in range(k)]
            first = outs[0]
            if isinstance(first, torch.Tensor):
                return sum(outs) / k
            return type(first)(
                sum(o[i] for o in outs) / k
                if isinstance(x, torch.Tensor) and x.is_floating_point()
                else x
                for i, x in enumerate(first)
            )

        return run

    return backend


for _k in (1, 2, 3):
    if f"repeat{_k}" not in list_backends(exclude_tags=()):
        register_backend(repeat_backend(_k), name=f"repeat{_k}")


class KnownTruth(nn.Module):
    """DEPTH layers of tanh(h @ W) with one shared WIDTH x WIDTH weight, and a (B, 1) output: at
    batch size 512 a step is about 5 ms of matmuls on two cores, nearly all of it in the graph."""

    def __init__(self) -> None:
        super().__init__()
        self.weight = nn.Parameter(torch.randn(WIDTH, WIDTH) / math.sqrt(WIDTH))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        h = x
        for _ in range(DEPTH):
            h = torch.tanh(h @ self.weight)
        return h.mean(dim=1, keepdim=True)


def make_batch(batch_size: int, device: torch.device) -> tuple[torch.Tensor, torch.Tensor]:
    """Inputs (B, WIDTH) and regression targets (B, 1), from tcprof's seeded generator."""
    return torch.randn(batch_size, WIDTH, device=device), torch.randn(batch_size, 1, device=device)
