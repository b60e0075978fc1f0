"""Save an arm's trained weights so they load into the plain (uncompiled) model.

A compiled model's state_dict() keys carry an `_orig_mod.` prefix; weights saved from it do not
load into the eager model. We save the original module's state_dict (stripping any such prefix,
for models the user compiled themselves) and prove it by loading into a freshly built eager
model with strict=True."""

from __future__ import annotations

from pathlib import Path
from types import ModuleType
from typing import Any

import torch
import torch.nn as nn

from tcprof.profiler.worker import model_source

PREFIX = "_orig_mod."


def clean_state_dict(model: nn.Module) -> dict[str, torch.Tensor]:
    out = {}
    for key, value in model.state_dict().items():
        while key.startswith(PREFIX):
            key = key[len(PREFIX) :]
        key = key.replace("." + PREFIX, ".")
        out[key] = value.detach().cpu().contiguous()
    return out


def save_weights(
    model: nn.Module,
    module: ModuleType,
    model_name: str | None,
    factory: str | None,
    path: Path,
    fmt: str,
) -> dict[str, Any]:
    state = clean_state_dict(model)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.name + ".tmp")
    if fmt == "safetensors":
        from safetensors.torch import load_file, save_file

        # safetensors refuses tensors that share memory (tied weights): clone those.
        seen: dict[int, str] = {}
        for key, value in list(state.items()):
            ptr = value.untyped_storage().data_ptr()
            if ptr in seen:
                state[key] = value.clone()
            seen[ptr] = key
        save_file(state, str(tmp))
        tmp.replace(path)
        loaded = load_file(str(path))
    else:
        torch.save(state, tmp)
        tmp.replace(path)
        loaded = torch.load(path, weights_only=True)
    fresh, _ = model_source.build_model(module, model_name, factory)
    fresh.load_state_dict(loaded, strict=True)  # raises if a key is missing or unexpected
    same = all(torch.equal(loaded[k], v) for k, v in state.items())
    return {"path": str(path), "format": fmt, "tensors": len(state), "verified": same}
