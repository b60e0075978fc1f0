"""The hooks a script runs under, installed for one run of it and removed after.

- torch.optim's global optimizer step post-hook: a step's end (the first optimizer to step is
  the one counted: a second optimizer of the same iteration is part of its step);
- `Optimizer.__init__`: the model is the module among the script's variables that owns the
  new optimizer's parameters (script_compile.find_owner);
- `torch.autograd.backward` (which `Tensor.backward` calls): the loss of the step, a detached
  reference read after the block; a loss scaled by `GradScaler.scale` is unscaled;
- `GradScaler.step`: a step the scaler skips (inf or NaN gradients: it does not call the
  optimizer's `step`, so no step hook fires) still ends the script's iteration, as a skipped
  step, so its time and loss do not join the next step's;
- `torch.compile`: script_compile.ScriptCompiler;
- `torch.save`: the file it writes (script_files.py; its C++ writer is not audited);
- with `--step-on forward`, a global forward pre-hook until the first module is called: that
  module is the model.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from types import TracebackType
from typing import Any

import torch
from torch import nn
from torch.optim.optimizer import register_optimizer_step_post_hook

from tcprof.profiler.worker.script import files as script_files
from tcprof.profiler.worker.script.compiles import ScriptCompiler, find_owner, user_frame, where
from tcprof.profiler.worker.script.steps import StepTracker


class ScriptHooks:
    def __init__(self, tracker: StepTracker, compiler: ScriptCompiler) -> None:
        self.tracker = tracker
        self.compiler = compiler
        self.primary: torch.optim.Optimizer | None = None  # the optimizer whose steps count
        self.scaled: dict[int, torch.Tensor] = {}  # id of a GradScaler-scaled loss -> scale
        self.skipped = 0  # steps a GradScaler skipped (inf or NaN gradients)
        self.others: list[torch.optim.Optimizer] = []  # optimizers stepped besides `primary`
        self._undo: list[Callable[[], None]] = []

    def __enter__(self) -> ScriptHooks:
        self._patch(torch, "compile", self.compiler.torch_compile)  # its caller is the script
        self._patch(torch.autograd, "backward", self._wrap_backward(torch.autograd.backward))
        self._patch(
            torch.optim.Optimizer, "__init__", self._wrap_init(torch.optim.Optimizer.__init__)
        )
        self._patch(torch.amp.GradScaler, "scale", self._wrap_scale(torch.amp.GradScaler.scale))
        self._patch(torch.amp.GradScaler, "step", self._wrap_scaler_step(torch.amp.GradScaler.step))
        self._patch(torch, "save", _wrap_save(torch.save))
        handle = register_optimizer_step_post_hook(self._step_post)
        self._undo.append(handle.remove)
        if self.tracker.step_on == "forward":
            self._discovery = nn.modules.module.register_module_forward_pre_hook(self._first_call)
            self._undo.append(self._discovery.remove)
            self.compiler.on_adopt = self._discovery.remove
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        while self._undo:
            self._undo.pop()()

    def _patch(self, owner: Any, name: str, value: Any) -> None:
        previous = owner.__dict__[name] if isinstance(owner, type) else getattr(owner, name)
        setattr(owner, name, value)
        self._undo.append(lambda: setattr(owner, name, previous))

    # -- the hooks ----------------------------------------------------------------------------
    def _wrap_backward(self, original: Callable[..., Any]) -> Callable[..., Any]:
        def backward(tensors: Any, *args: Any, **kwargs: Any) -> Any:
            if isinstance(tensors, torch.Tensor) and tensors.numel() == 1:
                loss = tensors.detach()
                scale = self.scaled.pop(id(tensors), None)
                self.tracker.backward(loss / scale if scale is not None else loss)
            return original(tensors, *args, **kwargs)

        return backward

    def _wrap_scale(self, original: Callable[..., Any]) -> Callable[..., Any]:
        def scale(scaler: Any, outputs: Any) -> Any:
            out = original(scaler, outputs)
            factor = getattr(scaler, "_scale", None)
            if isinstance(out, torch.Tensor) and out is not outputs and factor is not None:
                self.scaled[id(out)] = factor.detach().clone()
            return out

        return scale

    def _wrap_scaler_step(self, original: Callable[..., Any]) -> Callable[..., Any]:
        hooks = self

        def step(scaler: Any, optimizer: torch.optim.Optimizer, *args: Any, **kwargs: Any) -> Any:
            before = hooks.tracker.index
            out = original(scaler, optimizer, *args, **kwargs)
            counted = hooks.primary is None or optimizer is hooks.primary
            if hooks.tracker.step_on == "optimizer" and hooks.tracker.index == before and counted:
                hooks.primary = optimizer  # its step hook did not fire: the scaler skipped it
                hooks.skipped += 1
                hooks.scaled.clear()
                hooks.tracker.step_end()
            return out

        return step

    def _wrap_init(self, original: Callable[..., Any]) -> Callable[..., Any]:
        hooks = self

        def __init__(opt: torch.optim.Optimizer, *args: Any, **kwargs: Any) -> None:
            original(opt, *args, **kwargs)
            if hooks.compiler.model is None and hooks.tracker.step_on == "optimizer":
                frame = sys._getframe(1)
                found = find_owner(opt, frame)
                made = where(user_frame(frame))["where"]
                if found is not None:
                    how = f"whose parameters {type(opt).__name__} at {made} optimizes"
                    hooks.compiler.adopt(found[0], how, found[1])

        return __init__

    def _step_post(self, opt: torch.optim.Optimizer, args: Any, kwargs: Any) -> None:
        if self.tracker.step_on != "optimizer":
            return
        if self.primary is None:
            self.primary = opt
            if self.compiler.model is None:  # made where its frames did not show the model
                found = find_owner(opt, sys._getframe(1))
                if found is not None:
                    how = "found at the first step (which ran uncompiled)"
                    self.compiler.adopt(found[0], how, found[1])
        if opt is self.primary:
            self.scaled.clear()
            self.tracker.step_end()
        elif all(other is not opt for other in self.others):
            self.others.append(opt)
            assert self.primary is not None
            first, this = type(self.primary).__name__, type(opt).__name__
            text = (
                f"another optimizer, {this}, steps too: the steps counted are the first's "
                f"({first}), and the other's steps are part of them"
            )
            self.compiler.note({"kind": "other_optimizer", "text": text})

    def _first_call(self, module: nn.Module, args: Any) -> None:
        """--step-on forward: the first module the script calls is the model (this first
        call runs as it is and is not a step; the calls after it are)."""
        if self.compiler.model is None and any(True for _ in module.parameters()):
            self.compiler.adopt(module, "the first module the script calls")


def _wrap_save(original: Callable[..., Any]) -> Callable[..., Any]:
    def save(obj: Any, f: Any, *args: Any, **kwargs: Any) -> Any:
        script_files.note(f)
        return original(obj, f, *args, **kwargs)

    return save
