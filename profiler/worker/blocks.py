"""The model's repeated block: the unit that regional compilation compiles and that FSDP shards.

Transformers and most deep networks repeat one block many times (GPT's `h`, Llama's `layers`).
Compiling that block once instead of the whole model cuts compile time, since TorchDynamo
reuses the block's code for every instance. One definition serves every feature that needs it:
the children of the model's largest `nn.ModuleList`, or, when the user names a class
(`--block-module NAME`), every outermost submodule of that class.
"""

from __future__ import annotations

from dataclasses import dataclass

import torch.nn as nn


class NoRepeatedBlock(ValueError):
    """The model has no repeated block to compile or shard; the message says what to do."""


@dataclass
class RepeatedBlocks:
    modules: list[nn.Module]
    class_name: str  # the block's class, e.g. "Block"
    where: str  # the ModuleList's path ("transformer.h"), or "" when found by class name

    def describe(self) -> dict[str, object]:
        return {"class": self.class_name, "count": len(self.modules), "where": self.where or None}


def find_repeated_blocks(model: nn.Module, class_name: str | None = None) -> RepeatedBlocks:
    if class_name:
        return _by_class(model, class_name)
    lists = [
        (name, m) for name, m in model.named_modules() if isinstance(m, nn.ModuleList) and len(m)
    ]
    if not lists:
        raise NoRepeatedBlock(
            "the model has no nn.ModuleList of repeated blocks; name the block's class with "
            "--block-module NAME"
        )
    name, biggest = max(lists, key=lambda item: (len(item[1]), _params(item[1])))
    children = list(biggest)
    kinds = {type(c).__name__ for c in children}
    return RepeatedBlocks(children, "/".join(sorted(kinds)), name)


def _by_class(model: nn.Module, class_name: str) -> RepeatedBlocks:
    found: list[tuple[str, nn.Module]] = []
    for name, m in model.named_modules():
        if type(m).__name__ != class_name:
            continue
        if any(name.startswith(outer + ".") for outer, _ in found):
            continue  # inside a block already found: the outermost one is compiled
        found.append((name, m))
    if not found:
        classes = sorted({type(m).__name__ for m in model.modules()} - {type(model).__name__})
        raise NoRepeatedBlock(
            f"no submodule of class {class_name!r} in the model; its classes: {', '.join(classes)}"
        )
    return RepeatedBlocks([m for _, m in found], class_name, "")


def _params(module: nn.Module) -> int:
    return sum(p.numel() for p in module.parameters())
