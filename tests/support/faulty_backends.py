"""torch.compile backends that are wrong on purpose, for the accuracy check's tests.

backward_fault: the forward is aot_eager's, exact; the backward graph's every gradient is
scaled by GRADIENT_SCALE, so the output and the loss agree with eager and the gradients do not.

stale_weights: runs dynamo's graph with the parameters as they were when it was compiled, so
the first step is exact and every later one computes with the initial weights (the gradients
still reach the live parameters, so the optimizer keeps stepping them).

Use them as torch.compile(m, backend=backward_fault), or by name after register(); a model
file that calls register() when it is imported (tests/support/models/stale_backend_model.py)
makes them names `--arms` accepts, since a worker checks an arm's backend after loading the
model file.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import torch
import torch.nn as nn
from functorch.compile import make_boxed_func
from torch._dynamo.backends.common import aot_autograd

GRADIENT_SCALE = 1.5
BACKWARD_FAULT = "backward_fault_TESTING_ONLY"
STALE_WEIGHTS = "stale_weights_TESTING_ONLY"


def _forward(gm: torch.fx.GraphModule, example_inputs: list[Any]) -> Callable[..., Any]:
    return make_boxed_func(gm.forward)


def _scaled_backward(gm: torch.fx.GraphModule, example_inputs: list[Any]) -> Callable[..., Any]:
    def run(*args: Any) -> list[Any]:
        grads = gm(*args)
        return [g * GRADIENT_SCALE if isinstance(g, torch.Tensor) else g for g in grads]

    return make_boxed_func(run)


backward_fault = aot_autograd(fw_compiler=_forward, bw_compiler=_scaled_backward)


def stale_weights(gm: torch.fx.GraphModule, example_inputs: list[Any]) -> Callable[..., Any]:
    frozen = [x.detach().clone() if isinstance(x, nn.Parameter) else None for x in example_inputs]

    def run(*args: Any) -> Any:
        # the compile-time value, with the live parameter's gradient (identity backward)
        return gm(
            *(a if f is None else a + (f - a).detach() for a, f in zip(args, frozen, strict=True))
        )

    return run


def register() -> None:
    """Both under their names (idempotent: dynamo refuses a name twice)."""
    from torch._dynamo import list_backends, register_backend

    known = list_backends(exclude_tags=())
    for name, fn in ((BACKWARD_FAULT, backward_fault), (STALE_WEIGHTS, stale_weights)):
        if name not in known:
            register_backend(fn, name=name)
