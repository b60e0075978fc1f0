"""Compile per arm without editing the script.

`torch.compile` is replaced while the script runs. When the script calls it (or
`nn.Module.compile`, which calls it), the eager arm gets the module or function back
uncompiled, and a compiled arm's backend, mode, dynamic and fullgraph replace the script's
arguments. When the script never compiles its model, the model (the module that owns the
optimizer's parameters, found among the script's variables when the optimizer is made, or in
`--step-on forward` the first module the script calls) is compiled in place at its first call,
as `nn.Module.compile` does, so `state_dict` keys stay clean.

The model's calls go through a small dispatcher set as its `_compiled_call_impl` (what
`nn.Module.compile` sets), which marks the first forward of each step outside any compiled
code; a module the script compiled into an `OptimizedModule` is marked by a forward pre-hook on
that wrapper, which runs before TorchDynamo's frame. Each mark carries the call's inputs: the
step's work (script_work.py) is read from their shapes there. Every decision becomes a note for the
session ("GPT (model.py:118) compiled in place with backend=inductor").
"""

from __future__ import annotations

import inspect
import os
import sys
from collections.abc import Callable
from types import FrameType
from typing import Any

import torch
from torch import nn

from tcprof.profiler.config import ArmSpec
from tcprof.profiler.worker.frames import MODULE_COMPILE, TORCH_DIR, internal
from tcprof.profiler.worker.script.steps import StepTracker

_MODULE_COMPILE = MODULE_COMPILE


def user_frame(frame: FrameType | None) -> FrameType | None:
    while frame is not None and internal(frame.f_code.co_filename):
        frame = frame.f_back
    return frame


def where(frame: FrameType | None) -> dict[str, Any]:
    if frame is None:
        return {"file": None, "line": None, "where": "?"}
    path = frame.f_code.co_filename
    return {
        "file": path,
        "line": frame.f_lineno,
        "where": f"{os.path.basename(path)}:{frame.f_lineno}",
    }


def class_where(module: nn.Module) -> dict[str, Any]:
    """Where the model's class is defined: 'GPT (model.py:118)'."""
    cls = type(module)
    try:
        path = inspect.getsourcefile(cls)
        line = inspect.getsourcelines(cls)[1]
    except (OSError, TypeError):
        return {"file": None, "line": None, "where": f"{cls.__name__} ({cls.__module__})"}
    if path is None or path.startswith(TORCH_DIR) or "site-packages" in path:
        return {"file": None, "line": None, "where": f"{cls.__name__} ({cls.__module__})"}
    name = os.path.basename(path)
    return {"file": path, "line": line, "where": f"{cls.__name__} ({name}:{line})"}


class Dispatch:
    """The model's `_compiled_call_impl`: marks the step's first forward, then calls the
    model compiled in place (decided at the first call) or as it is."""

    def __init__(self, compiler: ScriptCompiler, module: nn.Module, inner: Any = None) -> None:
        self.compiler = compiler
        self.module = module
        self.inner = inner  # None: decide at the first call
        self.depth = 0

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        if self.inner is None:
            self.inner = self.compiler.in_place(self.module)
        tracker = self.compiler.tracker
        outer = self.depth == 0
        if outer:
            tracker.forward_start(self.module.training and torch.is_grad_enabled(), args, kwargs)
        self.depth += 1
        try:
            out = self.inner(*args, **kwargs)
        finally:
            self.depth -= 1
        if outer:
            tracker.forward_end()
        return out

    def __deepcopy__(self, memo: dict[int, Any]) -> None:
        return None  # a copy of the model (an EMA, say) is a plain module

    def __reduce__(self) -> tuple[Any, tuple[()]]:
        return (type(None), ())  # torch.save(model) saves a plain module


class TimedFunction:
    """What the script's own torch.compile of a function (or Module.compile) returns: the
    compiled (or, eager, the original) callable, whose calls mark the step's first forward."""

    def __init__(self, compiler: ScriptCompiler, fn: Any, owner: nn.Module | None) -> None:
        self.compiler, self.fn, self.owner = compiler, fn, owner

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        model = self.compiler.model
        counts = self.owner is None or self.owner is model
        training = model is None or (model.training and torch.is_grad_enabled())
        if counts:
            self.compiler.tracker.forward_start(training, args, kwargs)
        out = self.fn(*args, **kwargs)
        if counts:
            self.compiler.tracker.forward_end()
        return out

    def __getattr__(self, name: str) -> Any:
        return getattr(self.fn, name)

    def __deepcopy__(self, memo: dict[int, Any]) -> None:
        return None

    def __reduce__(self) -> tuple[Any, tuple[()]]:
        return (type(None), ())


class ScriptCompiler:
    def __init__(
        self,
        arm: ArmSpec,
        tracker: StepTracker,
        original: Callable[..., Any],
        note: Callable[[dict[str, Any]], None],
    ) -> None:
        self.arm = arm
        self.tracker = tracker
        self.original = original  # torch.compile itself
        self.note = note
        self.model: nn.Module | None = None
        self.wrapper: nn.Module | None = None  # the OptimizedModule the script made of it
        self.wrappers: dict[int, nn.Module] = {}  # module id -> the script's OptimizedModule
        self.script_compiled: set[int] = set()  # ids of modules the script compiled itself
        self.function_compiled = False
        self.on_adopt: Callable[[], None] | None = None  # the hooks drop their discovery
        self.name: str | None = None  # the script's variable holding the model

    # -- the arm's options ------------------------------------------------------------------
    def arm_kwargs(self, script_kwargs: dict[str, Any]) -> dict[str, Any]:
        """The script's torch.compile arguments with the arm's in place of backend, mode,
        dynamic and fullgraph (its `options` kept when the arm has no mode)."""
        kw = dict(script_kwargs)
        for key in ("backend", "mode", "dynamic", "fullgraph"):
            kw.pop(key, None)
        kw["backend"] = self.arm.torch_backend
        kw["fullgraph"] = self.arm.fullgraph
        kw["dynamic"] = self.arm.dynamic
        if self.arm.mode not in (None, "default"):
            kw["mode"] = self.arm.mode
            kw.pop("options", None)
        return kw

    def describe_options(self) -> str:
        parts = [f"backend={self.arm.torch_backend}"]
        if self.arm.mode not in (None, "default"):
            parts.append(f"mode={self.arm.mode}")
        if self.arm.dynamic is not None:
            parts.append(f"dynamic={self.arm.dynamic}")
        if self.arm.fullgraph:
            parts.append("fullgraph=True")
        return ", ".join(parts)

    # -- torch.compile, as the script calls it ----------------------------------------------
    def torch_compile(self, model: Any = None, **kwargs: Any) -> Any:
        caller = sys._getframe(1)
        if internal(caller.f_code.co_filename) and caller.f_code.co_filename != _MODULE_COMPILE:
            return self.original(model, **kwargs)  # torch compiling something of its own
        if model is None:  # @torch.compile(mode=...): a decorator
            return lambda fn: self._script_compile(fn, kwargs, user_frame(caller))
        return self._script_compile(model, kwargs, user_frame(caller))

    def _script_compile(self, target: Any, kwargs: dict[str, Any], frame: FrameType | None) -> Any:
        at = where(frame)
        owner = getattr(target, "__self__", None)
        if isinstance(owner, nn.Module) and getattr(target, "__name__", "") == "_call_impl":
            return self._module_compile(owner, target, kwargs, at)  # nn.Module.compile
        if isinstance(target, nn.Module):
            return self._compile_module(target, kwargs, at)
        self.function_compiled = True
        name = getattr(target, "__name__", type(target).__name__)
        if not self.arm.compiled:
            self._note_script(at, f"{name}", kwargs)
            return target
        self._note_script(at, name, kwargs)
        if self.model is not None:
            self._undo_dispatch(self.model)  # its calls are traced inside the function now
        return TimedFunction(self, self.original(target, **self.arm_kwargs(kwargs)), None)

    def _compile_module(self, module: nn.Module, kwargs: dict[str, Any], at: dict[str, Any]) -> Any:
        self.script_compiled.add(id(module))
        self._note_script(at, type(module).__name__, kwargs)
        if not self.arm.compiled:
            if self.tracker.step_on == "forward" and self.model is None:
                self.adopt(module, "the module the script compiles")
            return module
        self._undo_dispatch(module)
        wrapped = self.original(module, **self.arm_kwargs(kwargs))
        self.script_compiled.add(id(wrapped))
        wrapped.register_forward_pre_hook(self._pre_hook, with_kwargs=True)
        wrapped.register_forward_hook(self._post_hook)
        self.wrappers[id(module)] = wrapped
        if self.model is module:
            self.wrapper = wrapped
        if self.tracker.step_on == "forward" and self.model is None:
            self.adopt(module, "the module the script compiles")
        return wrapped

    def _module_compile(
        self, module: nn.Module, call_impl: Any, kwargs: dict[str, Any], at: dict[str, Any]
    ) -> Any:
        self.script_compiled.add(id(module))
        self._note_script(at, f"{type(module).__name__}.compile()", kwargs)
        fn = self.original(call_impl, **self.arm_kwargs(kwargs)) if self.arm.compiled else call_impl
        return TimedFunction(self, fn, module)

    def _note_script(self, at: dict[str, Any], what: str, kwargs: dict[str, Any]) -> None:
        given = ", ".join(f"{k}={v!r}" for k, v in kwargs.items()) or "no arguments"
        if self.arm.compiled:
            text = (
                f"the script's own torch.compile at {at['where']} ({what}) ran with "
                f"{self.describe_options()} (the script gave {given})"
            )
        else:
            text = (
                f"the script's own torch.compile at {at['where']} ({what}) returned it "
                "uncompiled: this is the eager arm"
            )
        self.note({"kind": "script_compile", "text": text, "file": at["file"], "line": at["line"]})

    def _pre_hook(self, module: nn.Module, args: Any, kwargs: dict[str, Any]) -> None:
        if module is self.wrapper:
            self.tracker.forward_start(module.training and torch.is_grad_enabled(), args, kwargs)

    def _post_hook(self, module: nn.Module, args: Any, out: Any) -> None:
        if module is self.wrapper:
            self.tracker.forward_end()

    # -- the model --------------------------------------------------------------------------
    def adopt(self, module: nn.Module, how: str, name: str | None = None) -> None:
        """The script's model is found: its calls go through the dispatcher from now on."""
        if self.model is not None:
            return
        inner_mod = getattr(module, "_orig_mod", None)
        if isinstance(inner_mod, nn.Module) and id(module) in self.script_compiled:
            module = inner_mod  # the script's OptimizedModule: the model is what it wraps
        self.model = module
        self.wrapper = self.wrappers.get(id(module))
        if self.on_adopt is not None:
            self.on_adopt()
        info = class_where(module)
        self.name = name if name is not None else variable_name(module, sys._getframe(1))
        called = f"`{self.name}`, " if self.name else ""
        self.note({"kind": "model", "text": f"the model is {called}{info['where']}, {how}", **info})
        if self.arm.compiled and (self.wrapper is not None or self.function_compiled):
            return  # the script's compiled code calls it: marks come from that code's calls
        if not isinstance(module._compiled_call_impl, TimedFunction):  # its own .compile()
            module._compiled_call_impl = Dispatch(self, module)

    def in_place(self, module: nn.Module) -> Any:
        """At the model's first call: compiled in place unless the script compiled it (or a
        function calling it) itself; the eager arm calls it as it is."""
        info = class_where(module)
        if not self.arm.compiled:
            return module._call_impl
        if id(module) in self.script_compiled or self.function_compiled:
            return module._call_impl
        compiled = self.original(_traceable(module), **self.arm_kwargs({}))
        called = f"`{self.name}`, " if self.name else ""
        text = f"{called}{info['where']}, compiled in place with {self.describe_options()}"
        self.note({"kind": "in_place", "text": text, "file": info["file"], "line": info["line"]})
        return compiled

    def _undo_dispatch(self, module: nn.Module) -> None:
        if isinstance(module._compiled_call_impl, Dispatch):
            module._compiled_call_impl = None


def _traceable(module: nn.Module) -> Any:
    """What to compile for the module in place: its `_call_impl`, as `nn.Module.compile`
    does; for a module whose forward is torch's own (an `nn.Sequential`), whose frames
    TorchDynamo does not trace as the first frame, wrapped in a frame it traces, as
    `torch.compile(module)` wraps it (OptimizedModule._initialize)."""
    import types

    from torch._dynamo import external_utils, trace_rules

    forward = module.forward
    if isinstance(forward, types.MethodType) and trace_rules.check(forward):
        return external_utils.wrap_inline(module._call_impl)
    return module._call_impl


def find_owner(
    optimizer: torch.optim.Optimizer, frame: FrameType | None
) -> tuple[nn.Module, str | None] | None:
    """The module among the script's variables (its frames' locals and globals, from the one
    making the optimizer outwards) that owns the optimizer's parameters: all of them, with the
    fewest others; else the one owning most of them. With the script's name for it
    (`variable_name`: `model`, not the `self` of the method that made the optimizer)."""
    wanted = {id(p) for group in optimizer.param_groups for p in group["params"]}
    best: tuple[tuple[int, int, int], nn.Module] | None = None
    seen: set[int] = set()
    start = frame
    while frame is not None:
        if not internal(frame.f_code.co_filename):
            for value in list(frame.f_locals.values()):
                if not isinstance(value, nn.Module) or id(value) in seen:
                    continue
                seen.add(id(value))
                own = {id(p) for p in value.parameters()}
                covered = len(wanted & own)
                if not covered:
                    continue
                plain = 0 if hasattr(value, "_orig_mod") else 1
                score = (covered, -len(own - wanted), plain)
                if best is None or score > best[0]:
                    best = (score, value)
        frame = frame.f_back
    return (best[1], variable_name(best[1], start)) if best else None


UNNAMING = ("self", "cls")  # a method's own argument: the object's name inside its class


def variable_name(module: nn.Module, frame: FrameType | None) -> str | None:
    """The script's name for the model: the variable holding it (or the script's compiled
    wrapper of it) in the outermost of the script's frames that has one, from `frame` outwards
    (the module level or the caller, where the user wrote `model = GPT(...)`); never a
    method's `self`. None: no variable of the script holds it (the class alone names it)."""
    inner = getattr(module, "_orig_mod", module)
    name = None
    while frame is not None:
        if not internal(frame.f_code.co_filename):
            for key, value in list(frame.f_locals.items()):
                if key in UNNAMING or not isinstance(value, nn.Module):
                    continue
                if value is inner or getattr(value, "_orig_mod", None) is inner:
                    name = key
                    break
        frame = frame.f_back
    return name
