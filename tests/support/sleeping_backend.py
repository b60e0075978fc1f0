"""A torch.compile backend whose compile time is known by construction: each compile sleeps
SLEEP_S and returns dynamo's graph as it is (its backward runs eagerly through the graph), so a
run that compiled N frames spent at least N x SLEEP_S compiling (dynamo's own tracing on top).
The check of a compile cost against something that is not torch's own timer."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

import torch

SLEEP_S = 0.3
SLEEPING = "sleeping_TESTING_ONLY"


def sleeping(gm: torch.fx.GraphModule, example_inputs: list[Any]) -> Callable[..., Any]:
    time.sleep(SLEEP_S)
    return gm.forward


def register() -> None:
    """Under its name (idempotent: dynamo refuses a name twice)."""
    from torch._dynamo import list_backends, register_backend

    if SLEEPING not in list_backends(exclude_tags=()):
        register_backend(sleeping, name=SLEEPING)
