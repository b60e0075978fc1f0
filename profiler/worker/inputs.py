"""Inputs, targets and loss for the user's model, built from shapes (no data downloads).

Order of precedence for inputs: an explicit --input-shape, a `make_batch(batch_size, device)`
hook in the model file, then inference from the first layer with parameters.
"""

from __future__ import annotations

import inspect
from dataclasses import dataclass, field
from types import ModuleType
from typing import Any

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils._pytree import tree_map

from tcprof.profiler.config import InputShape, parse_input_shape

TARGET_PARAM_NAMES = ("targets", "target", "labels", "label", "y")
DEFAULT_SEQ_LEN = 32


class InputError(Exception):
    pass


@dataclass
class InputPlan:
    source: str  # "shape", "hook" or "inferred"
    shape: InputShape | None = None
    target_param: str | None = None  # forward() keyword that receives the targets
    notes: list[str] = field(default_factory=list)

    def describe(self) -> str:
        if self.source == "hook":
            return "make_batch(batch_size, device)"
        assert self.shape is not None
        return f"(B, {', '.join(str(d) for d in self.shape.dims)})" + (
            " int tokens" if self.shape.integer else " float"
        )


@dataclass
class Batch:
    args: tuple[Any, ...]
    kwargs: dict[str, Any]
    targets: Any  # a tensor, or None


def _first_param_layer(model: nn.Module) -> nn.Module | None:
    for mod in model.modules():
        if any(True for _ in mod.parameters(recurse=False)) or isinstance(
            mod, (nn.LSTM, nn.GRU, nn.RNN)
        ):
            return mod
    return None


def infer_shape(model: nn.Module) -> InputShape:
    layer = _first_param_layer(model)
    if layer is None:
        raise InputError(
            "cannot infer the input shape (the model has no parameters); pass --input-shape"
        )
    if isinstance(layer, nn.Embedding):
        lens = [m.num_embeddings for m in model.modules() if isinstance(m, nn.Embedding)]
        seq = min([DEFAULT_SEQ_LEN, *[n for n in lens[1:]]]) if len(lens) > 1 else DEFAULT_SEQ_LEN
        for attr in (
            "block_size",
            "max_seq_len",
            "n_positions",
            "max_position_embeddings",
            "seq_len",
        ):
            value = getattr(getattr(model, "config", None), attr, None) or getattr(
                model, attr, None
            )
            if isinstance(value, int) and value > 0:
                seq = min(seq, value)
        return InputShape((seq,), integer=True, vocab=layer.num_embeddings)
    if isinstance(layer, nn.Linear):
        return InputShape((layer.in_features,))
    if isinstance(layer, nn.Conv1d):
        return InputShape((layer.in_channels, 128))
    if isinstance(layer, nn.Conv2d):
        return InputShape((layer.in_channels, 32, 32))
    if isinstance(layer, nn.Conv3d):
        return InputShape((layer.in_channels, 16, 16, 16))
    if isinstance(layer, (nn.BatchNorm1d, nn.BatchNorm2d)):
        return InputShape(
            (layer.num_features,)
            if isinstance(layer, nn.BatchNorm1d)
            else (layer.num_features, 32, 32)
        )
    if isinstance(layer, nn.LayerNorm):
        return InputShape(tuple(layer.normalized_shape))
    if isinstance(layer, (nn.LSTM, nn.GRU, nn.RNN)):
        if not layer.batch_first:
            raise InputError(
                f"the first layer is a {type(layer).__name__} without batch_first; pass a make_batch hook"
            )
        return InputShape((16, layer.input_size))
    raise InputError(
        f"cannot infer the input shape from the first layer ({type(layer).__name__}); pass --input-shape"
    )


def plan_inputs(model: nn.Module, module: ModuleType, input_shape: str | None) -> InputPlan:
    target_param = _target_param(model)
    if input_shape:
        return InputPlan("shape", parse_input_shape(input_shape), target_param)
    if callable(getattr(module, "make_batch", None)):
        return InputPlan("hook", None, target_param)
    shape = infer_shape(model)
    if shape.integer and shape.vocab is None:
        shape = InputShape(shape.dims, True, _vocab(model))
    return InputPlan("inferred", shape, target_param)


def _vocab(model: nn.Module) -> int:
    for m in model.modules():
        if isinstance(m, nn.Embedding):
            return m.num_embeddings
    return 1000


def _target_param(model: nn.Module) -> str | None:
    try:
        params = list(inspect.signature(model.forward).parameters)
    except (TypeError, ValueError):
        return None
    for name in params[1:]:
        if name in TARGET_PARAM_NAMES:
            return name
    return None


def make_batches(
    plan: InputPlan,
    model: nn.Module,
    module: ModuleType,
    batch_size: int,
    device: torch.device,
    seed: int,
    count: int,
) -> list[Batch]:
    """`count` distinct batches, identical for every arm (seeded by seed and batch size)."""
    batches = []
    for i in range(count):
        torch.manual_seed(seed * 1_000_003 + batch_size * 101 + i)
        if plan.source == "hook":
            batches.append(_with_targets(_from_hook(module, batch_size, device), plan))
            continue
        assert plan.shape is not None
        shape = (batch_size, *plan.shape.dims)
        if plan.shape.integer:
            vocab = plan.shape.vocab or _vocab(model)
            x = torch.randint(0, vocab, shape).to(device)
            y = torch.randint(0, vocab, shape).to(device)
        else:
            x, y = torch.randn(shape).to(device), None
        batches.append(_with_targets(Batch((x,), {}, y), plan))
    return batches


def to_channels_last(batches: list[Batch]) -> int:
    """Every 4-D input tensor of the batches in torch.channels_last (other inputs and the
    targets untouched); how many inputs of a batch were converted (0: none is 4-D)."""
    converted = 0

    def convert(x: Any) -> Any:
        nonlocal converted
        if isinstance(x, torch.Tensor) and x.dim() == 4:
            converted += 1
            return x.contiguous(memory_format=torch.channels_last)
        return x

    for batch in batches:
        batch.args = tree_map(convert, tuple(batch.args))
        batch.kwargs = tree_map(convert, dict(batch.kwargs))
    return converted // max(1, len(batches))


def _from_hook(module: ModuleType, batch_size: int, device: torch.device) -> Batch:
    try:
        result = module.make_batch(batch_size, device)
    except Exception as exc:
        raise InputError(
            f"make_batch({batch_size}, {device}) raised {type(exc).__name__}: {exc}"
        ) from exc
    if not (isinstance(result, (tuple, list)) and len(result) == 2):
        raise InputError("make_batch(batch_size, device) must return (inputs, targets)")
    inputs, targets = result
    if isinstance(inputs, dict):
        return Batch((), dict(inputs), targets)
    if isinstance(inputs, (tuple, list)):
        return Batch(tuple(inputs), {}, targets)
    return Batch((inputs,), {}, targets)


def _with_targets(batch: Batch, plan: InputPlan) -> Batch:
    if plan.target_param and batch.targets is not None and plan.target_param not in batch.kwargs:
        batch.kwargs[plan.target_param] = batch.targets
    return batch


class LossOf:
    """Turns the model's output into the training loss, deciding how once, on the first output.

    A loss the model returns (a 0-dim tensor in a tuple, a dict's 'loss', an object's .loss) is
    used as is; otherwise cross-entropy against integer targets, or MSE against a fixed random
    target of the output's shape (the seed's loop)."""

    def __init__(self, seed: int) -> None:
        self.kind: str | None = None
        self._seed = seed
        self._mse_targets: dict[tuple[tuple[int, ...], torch.dtype], torch.Tensor] = {}

    def __call__(self, out: Any, batch: Batch) -> torch.Tensor:
        if self.kind is None:
            self.kind = self._decide(out, batch)
        kind = self.kind
        if kind == "returned":
            loss = _returned_loss(out)
            if loss is None:
                raise InputError(
                    f"the model's first output held its loss, this {type(out).__name__} holds none"
                )
            return loss
        logits = _main_tensor(out)
        if logits is None:
            raise InputError(f"the model returned {type(out).__name__}, with no tensor to train on")
        if kind == "cross_entropy":
            t = batch.targets
            if logits.dim() > t.dim():
                return F.cross_entropy(logits.reshape(-1, logits.shape[-1]), t.reshape(-1))
            return F.cross_entropy(logits, t)
        if kind == "mse_targets":
            return F.mse_loss(logits, batch.targets)
        return F.mse_loss(logits, self._fixed_target(logits))

    def _decide(self, out: Any, batch: Batch) -> str:
        if _returned_loss(out) is not None:
            return "returned"
        logits = _main_tensor(out)
        if logits is None:
            raise InputError(f"the model returned {type(out).__name__}, with no tensor to train on")
        if isinstance(batch.targets, torch.Tensor):
            if not batch.targets.is_floating_point():
                return "cross_entropy"
            return "mse_targets"
        return "mse_random_target"

    def _fixed_target(self, logits: torch.Tensor) -> torch.Tensor:
        key = (tuple(logits.shape), logits.dtype)  # the same values in float64 (accuracy check)
        target = self._mse_targets.get(key)
        if target is None:
            gen = torch.Generator().manual_seed(self._seed + 7919 * logits.shape[0])
            target = torch.randn(key[0], generator=gen, dtype=torch.float32).to(
                logits.device, logits.dtype
            )
            self._mse_targets[key] = target
        return target


def _returned_loss(out: Any) -> torch.Tensor | None:
    if isinstance(out, (tuple, list)):
        for item in out:
            if isinstance(item, torch.Tensor) and item.dim() == 0 and item.is_floating_point():
                return item
        return None
    if isinstance(out, dict):
        loss = out.get("loss")
        return loss if isinstance(loss, torch.Tensor) else None
    loss = getattr(out, "loss", None)
    if not isinstance(out, torch.Tensor) and isinstance(loss, torch.Tensor):
        return loss
    return None


def _main_tensor(out: Any) -> torch.Tensor | None:
    if isinstance(out, torch.Tensor):
        return out
    if isinstance(out, (tuple, list)):
        return next((o for o in out if isinstance(o, torch.Tensor)), None)
    if isinstance(out, dict):
        logits = out.get("logits")
        if isinstance(logits, torch.Tensor):
            return logits
        return next((o for o in out.values() if isinstance(o, torch.Tensor)), None)
    logits = getattr(out, "logits", None)
    return logits if isinstance(logits, torch.Tensor) else None


def mark_dynamic(batches: list[Batch], dim: int) -> int:
    """Mark `dim` of every input tensor dynamic (torch._dynamo.mark_dynamic), so a new size in
    that dimension reuses the compiled graph instead of recompiling; returns tensors marked."""
    import torch._dynamo

    marked = 0
    for batch in batches:
        for value in (*batch.args, *batch.kwargs.values()):
            if isinstance(value, torch.Tensor) and value.dim() > dim:
                torch._dynamo.mark_dynamic(value, dim)
                marked += 1
    return marked
