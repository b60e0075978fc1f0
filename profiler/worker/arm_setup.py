"""Building an arm inside its worker, one step a function: device, backend, model, optimizer,
compile.

A step the user can get wrong (a device this torch build lacks, an unknown backend, a model
file that does not import) raises StepFailed with an error event that says what to fix.
"""

from __future__ import annotations

from dataclasses import dataclass
from types import ModuleType
from typing import Any

import torch

from tcprof.profiler.config import ArmSpec, RunConfig
from tcprof.profiler.config.backends import unknown_backend
from tcprof.profiler.worker import checkpoint, compile_cache, inputs, model_source, step_loop
from tcprof.profiler.worker.blocks import NoRepeatedBlock, find_repeated_blocks
from tcprof.profiler.worker.channel import EventChannel
from tcprof.profiler.worker.errors import StepFailed, load_error, simple_error, usage_error


def check_device(device_name: str) -> None:
    if device_name == "cuda" and not torch.cuda.is_available():
        raise usage_error("device 'cuda' was asked for, but this torch build sees no CUDA device")
    if device_name == "mps" and not torch.backends.mps.is_available():
        raise usage_error("device 'mps' was asked for, but it is not available")


def import_dynamo() -> None:
    """Import what torch.optim's constructors import (TorchDynamo, ~1-3 s in a fresh
    interpreter) before any clock runs. A model file's worker builds its optimizer at load; a
    script builds its own inside its start-up, where a fresh eager arm paid the import and a
    compiled arm (its compile watcher imports TorchDynamo at load) or a forked worker (the fork
    server has it) did not: the same script's start-up read 1.5 s in one view and 0.25 s in
    another. With it imported at load, start-up is the script's own in every arm."""
    import torch._dynamo  # noqa: F401
    import torch.optim  # noqa: F401


def check_backend(arm: ArmSpec) -> None:
    """Only compiled arms pay for importing TorchDynamo to list the backends."""
    from torch import _dynamo

    known = _dynamo.list_backends(exclude_tags=())
    if arm.torch_backend not in known:
        raise usage_error(unknown_backend(arm.backend, known))


def check_threads(threads: int | None) -> None:
    """Every worker computes with the threads its `load` command gave it; user code changing
    them would make the arms incomparable."""
    if threads and torch.get_num_threads() != threads:
        raise usage_error(
            f"torch.get_num_threads() is {torch.get_num_threads()}, not the {threads} "
            "tcprof set in every arm: does the model file call torch.set_num_threads? "
            "(choose with --threads)"
        )


@dataclass
class BuiltModel:
    module: ModuleType  # the user's file, imported
    model: torch.nn.Module  # on the device, in train mode (eval mode for an inference loop)
    how: str  # how it was built: the class or factory used
    plan: inputs.InputPlan
    weights: dict[str, Any] | None  # the user's checkpoint loaded into it (--weights)
    channels_last_params: int | None  # --channels-last: its 4-D parameters converted


def build_model(cfg: RunConfig, device: torch.device, user_file: str) -> BuiltModel:
    """Import the user's file and build the model from the run's seed (then the user's
    checkpoint, if any), so every arm starts from identical weights; in the loop's mode and,
    with --channels-last, memory format."""
    weights = None
    channels_last = None
    try:
        module = model_source.import_file(cfg.source.path)
        torch.manual_seed(cfg.seed)
        model, how = model_source.build_model(module, cfg.source.model, cfg.source.factory)
        if cfg.weights:
            weights = checkpoint.load_into(model, cfg.weights)
        model = model.to(device).train(cfg.loop == "train")
        if cfg.channels_last:
            channels_last = step_loop.model_to_channels_last(model)
        plan = inputs.plan_inputs(model, module, cfg.source.input_shape)
    except (inputs.InputError, checkpoint.CheckpointError) as exc:
        raise StepFailed(simple_error("load", str(exc))) from exc
    except Exception as exc:
        raise StepFailed(load_error(exc, user_file)) from exc
    return BuiltModel(module, model, how, plan, weights, channels_last)


def wrap_parallel(
    model: torch.nn.Module, parallel: str, block_module: str | None
) -> tuple[torch.nn.Module, dict[str, Any]]:
    """A distributed arm's model wrapped for data parallel training (before the optimizer is
    made, since FSDP replaces the parameters, and before torch.compile)."""
    from tcprof.profiler.worker import distributed

    try:
        return distributed.wrap(model, parallel, block_module)
    except Exception as exc:
        raise StepFailed(
            simple_error("load", f"wrapping the model for {parallel}: {type(exc).__name__}: {exc}")
        ) from exc


def make_optimizer(name: str, params: Any, lr: float) -> torch.optim.Optimizer:
    if name == "adam":
        return torch.optim.Adam(params, lr=lr)
    if name == "adamw":
        return torch.optim.AdamW(params, lr=lr)
    return torch.optim.SGD(params, lr=lr)


def compile_model(
    model: torch.nn.Module,
    arm: ArmSpec,
    cfg: RunConfig,
    user_file: str,
    channel: EventChannel,
    cache_dir: str | None,
    cache_artifacts: str | None,
) -> tuple[Any, Any, dict[str, Any] | None]:
    """torch.compile the model for a compiled arm, its caches set first; returns the compiled
    callable, the CompileWatcher that reports what TorchDynamo does with it, and for a
    regional arm which blocks were compiled."""
    from tcprof.profiler.worker.dynamo_insight import CompileWatcher

    if cache_dir:
        compile_cache.use_cache_dir(cache_dir)
    if cache_artifacts:
        channel.emit("cache_loaded", **compile_cache.load_artifacts(cache_artifacts))
    watcher = CompileWatcher(cfg.debug, user_file)
    options = {k: v for k, v in arm.options().items() if v is not None}
    if options.get("mode") == "default":
        options.pop("mode")
    if not arm.regional:
        return torch.compile(model, backend=arm.torch_backend, **options), watcher, None
    try:
        blocks = find_repeated_blocks(model, cfg.block_module)
    except NoRepeatedBlock as exc:
        raise usage_error(f"regional compilation: {exc}") from exc
    for block in blocks.modules:
        block.compile(backend=arm.torch_backend, **options)  # in place: the model is the runner
    return model, watcher, blocks.describe()
