"""The user's checkpoint, loaded into the model before a run (`--weights FILE`).

Speed and accuracy can depend on the weights (a trained model's activations, NaN guards, sparsity),
so a user can start every arm from their own. Files are read without running code: safetensors,
or `torch.load(weights_only=True)`, which refuses pickled objects other than tensors and plain
containers. Checkpoints come in many wrappings; we find the state dict inside the common ones
(`state_dict`, `model`, `model_state_dict`, `module`) and strip the prefixes that compiled
(`_orig_mod.`) and DistributedDataParallel (`module.`) models add, then load strictly: a key
that does not match is an error listing what is missing and what is unexpected, with shapes.
"""

from __future__ import annotations

import pickle
from pathlib import Path
from typing import Any

import torch

from tcprof.profiler.config import WEIGHT_SUFFIXES as SUFFIXES

WRAPPER_KEYS = ("state_dict", "model_state_dict", "model", "module", "net", "weights")
COMPILED_PREFIX = "_orig_mod."
DDP_PREFIX = "module."
LISTED = 8  # keys named in a mismatch message, per kind


class CheckpointError(Exception):
    """A checkpoint that cannot be read or does not fit the model; the message says why."""


def read_tensors(path: str | Path) -> dict[str, torch.Tensor]:
    """The flat name -> tensor mapping stored in a checkpoint file, without running its code."""
    path = Path(path)
    if path.suffix not in SUFFIXES:
        raise CheckpointError(
            f"{path.name}: weights are read from {', '.join(SUFFIXES)} files, not {path.suffix!r}"
        )
    if not path.is_file():
        raise CheckpointError(f"weights file not found: {path}")
    if path.suffix == ".safetensors":
        from safetensors.torch import load_file

        try:
            return load_file(str(path), device="cpu")
        except Exception as exc:  # safetensors raises its own error types
            raise CheckpointError(f"{path.name} is not a readable safetensors file: {exc}") from exc
    try:
        obj = torch.load(path, map_location="cpu", weights_only=True)
    except pickle.UnpicklingError as exc:
        raise CheckpointError(
            f"{path.name} holds pickled objects other than tensors, which tcprof will not "
            "unpickle (that would run code from the file). Save a plain state_dict: "
            "torch.save(model.state_dict(), path), or use safetensors."
        ) from exc
    except Exception as exc:
        raise CheckpointError(f"{path.name} could not be read by torch.load: {exc}") from exc
    return find_state_dict(obj, path.name)


def find_state_dict(obj: Any, name: str) -> dict[str, torch.Tensor]:
    """The state dict inside a checkpoint: the object itself, or one nested under a usual key."""
    for _ in range(4):  # wrappers nest a few levels at most
        if not isinstance(obj, dict):
            break
        tensors = {k: v for k, v in obj.items() if isinstance(v, torch.Tensor)}
        if tensors and len(tensors) == len(obj):
            return tensors
        inner = next((obj[k] for k in WRAPPER_KEYS if isinstance(obj.get(k), dict)), None)
        if inner is None:
            if tensors:  # tensors beside other entries (a step counter, a config): keep tensors
                return tensors
            break
        obj = inner
    keys = ", ".join(map(str, list(obj)[:LISTED])) if isinstance(obj, dict) else type(obj).__name__
    raise CheckpointError(f"{name}: no state dict of tensors found (top-level entries: {keys})")


def strip_prefixes(state: dict[str, torch.Tensor]) -> dict[str, torch.Tensor]:
    """Keys as the plain model names them: no `_orig_mod.` (torch.compile) anywhere, and no
    leading `module.` (DistributedDataParallel) when every key carries it."""
    out = {}
    for key, value in state.items():
        while key.startswith(COMPILED_PREFIX):
            key = key[len(COMPILED_PREFIX) :]
        out[key.replace("." + COMPILED_PREFIX, ".")] = value
    if out and all(k.startswith(DDP_PREFIX) for k in out):
        out = {k[len(DDP_PREFIX) :]: v for k, v in out.items()}
    return out


def _shape(t: torch.Tensor) -> str:
    return "x".join(map(str, t.shape)) or "scalar"


def _listed(title: str, items: list[str]) -> str:
    more = f" and {len(items) - LISTED} more" if len(items) > LISTED else ""
    return f"{title} ({len(items)}): {', '.join(items[:LISTED])}{more}"


def mismatch(model: torch.nn.Module, state: dict[str, torch.Tensor]) -> str | None:
    """What stops a strict load, in one message; None when the checkpoint fits."""
    expected = model.state_dict()
    missing = [f"{k} [{_shape(v)}]" for k, v in expected.items() if k not in state]
    unexpected = [f"{k} [{_shape(v)}]" for k, v in state.items() if k not in expected]
    wrong = [
        f"{k} [{_shape(state[k])} in the file, {_shape(v)} in the model]"
        for k, v in expected.items()
        if k in state and state[k].shape != v.shape
    ]
    parts = [
        _listed(title, items)
        for title, items in (
            ("missing", missing),
            ("unexpected", unexpected),
            ("wrong shape", wrong),
        )
        if items
    ]
    return "; ".join(parts) or None


def load_into(model: torch.nn.Module, path: str | Path) -> dict[str, Any]:
    """Load a checkpoint into the model strictly; returns what was loaded, for the session."""
    state = strip_prefixes(read_tensors(path))
    problem = mismatch(model, state)
    if problem:
        raise CheckpointError(f"{Path(path).name} does not fit the model: {problem}")
    model.load_state_dict(state, strict=True)
    return {"path": str(path), "tensors": len(state)}
