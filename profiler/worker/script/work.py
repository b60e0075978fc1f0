"""What a script's step consumed, read from the inputs its model is called with: the unit of
work its throughput is counted in.

A training forward's inputs (positional, then keyword: `input_ids` first, as Hugging Face
models take them) give samples, the leading dimension of the first tensor, and tokens, its
batch x sequence when that tensor holds token ids (an integer tensor of rank 2). Each micro-
batch of an optimizer step adds its own (gradient accumulation), and padding is counted: only
shapes are read, never values, so nothing waits for the device inside the timed step.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import torch

_FIRST_KEYS = ("input_ids", "input", "inputs", "x", "idx")  # keywords that name the batch


@dataclass
class Work:
    """A step's work so far: None until a forward showed it."""

    samples: int | None = None
    tokens: int | None = None

    def add(self, args: Sequence[Any], kwargs: Mapping[str, Any] | None) -> None:
        batch = first_tensor(args, kwargs or {})
        if batch is None or batch.dim() == 0:
            return
        self.samples = (self.samples or 0) + int(batch.shape[0])
        if is_token_ids(batch):
            self.tokens = (self.tokens or 0) + int(batch.shape[0]) * int(batch.shape[1])


def is_token_ids(t: torch.Tensor) -> bool:
    """Token ids: integers (not booleans) in a batch x sequence tensor."""
    return (
        t.dim() == 2
        and not t.is_floating_point()
        and not t.is_complex()
        and (t.dtype != torch.bool)
    )


def first_tensor(args: Sequence[Any], kwargs: Mapping[str, Any]) -> torch.Tensor | None:
    """The batch: the first tensor among the positional arguments (inside a tuple, list or
    dict given as one), else the keyword naming it, else the first keyword tensor."""
    for value in args:
        found = _tensor_in(value)
        if found is not None:
            return found
    for key in _FIRST_KEYS:
        named = kwargs.get(key)
        if isinstance(named, torch.Tensor):
            return named
    for value in kwargs.values():
        found = _tensor_in(value)
        if found is not None:
            return found
    return None


def _tensor_in(value: Any) -> torch.Tensor | None:
    if isinstance(value, torch.Tensor):
        return value
    if isinstance(value, Mapping):
        return first_tensor((), value)
    if isinstance(value, (list, tuple)):
        for item in value:
            if isinstance(item, torch.Tensor):
                return item
    return None
