"""A model whose compiled arm's speedup is fixed by construction (bench/known_truth.py).

Importing this file registers torch.compile backends `repeat2` and `repeat3`: each runs the
graph dynamo captured k times and returns the mean of the k outputs, so the forward and the
backward both do k times eager's work while the gradients, the loss and the training stay
exactly eager's (the accuracy check passes). The work is wide matmuls, so the repeated part
dominates the per-step costs that are not repeated (the optimizer step, the loss, module
calls, dynamo's guards); bench/known_truth.py measures what remains of those in one process.
"""

from __future__ import annotations

from typing import Any

import torch
import torch.nn as nn
from torch._dynamo import list_backends, register_backend

WIDTH = 384


def repeat_backend(k: int) -> Any:
    def backend(gm: torch.fx.GraphModule, example_inputs: list[torch.Tensor]) -> Any:
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


for _k in (2, 3):
    if f"repeat{_k}" not in list_backends(exclude_tags=()):
        register_backend(repeat_backend(_k), name=f"repeat{_k}")


class KnownTruth(nn.Module):
    """Three wide layers: at batch size 64 a step is a few ms of matmuls on one core."""

    def __init__(self) -> None:
        super().__init__()
        self.net = nn.Sequential(
            nn.Linear(WIDTH, WIDTH),
            nn.Tanh(),
            nn.Linear(WIDTH, WIDTH),
            nn.Tanh(),
            nn.Linear(WIDTH, WIDTH),
        )

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.net(x)
