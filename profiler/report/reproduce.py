"""reproduce.py: a standalone plain-PyTorch script for one arm of a session (no tcprof needed).

It loads the user's model file, builds inputs the way the profiler's worker does (an input
shape, integer tokens, or the file's make_batch hook; same seeds, so the first loss matches
the session), applies the arm's torch.compile line and debug settings, and runs the session's
loop kind (training, or inference under torch.inference_mode(); autocast with its GradScaler,
channels_last, a compiled optimizer step), printing the loss. Values from the session enter the script only as Python
literals (repr) or as single-line comments, so nothing in a session can inject code.
"""

from __future__ import annotations

import re
import textwrap
from dataclasses import dataclass
from pathlib import Path
from string import Template
from typing import Any

from tcprof.profiler.config import (
    DYNAMO_EAGER,
    ArmSpec,
    ConfigError,
    arms_of,
    loop_text,
    parse_input_shape,
    where_text,
)
from tcprof.profiler.config.resources import resource_path
from tcprof.profiler.model.arm import Arm
from tcprof.profiler.model.json_values import thaw
from tcprof.profiler.model.loaded import Loaded
from tcprof.profiler.model.options import DebugFlags, RunOptions, Source
from tcprof.profiler.model.session import SessionModel

TEMPLATE = resource_path("report", "reproduce_template.py.txt")
AUTOCAST_DTYPES = {"bf16": "torch.bfloat16", "fp16": "torch.float16"}
_LOADED_INPUT = re.compile(r"^\(B,\s*([\d,\s]+)\)\s*(float|int tokens)$")


def _comment(value: Any) -> str:
    """Text safe on one comment line."""
    return " ".join(str(value).split())


def _find_arm(session: SessionModel, arm_name: str | None) -> Arm:
    arms = session.arms
    if not arms:
        raise ValueError("the session has no arms")
    if arm_name is None:
        diverged = session.ladder.first_divergence if session.ladder else None
        compiled = [a for a in arms if a.backend != "eager"]
        # a ladder's reproducer is the stage that diverged: the minifier command runs it
        first = next((a for a in compiled if a.backend == diverged), None)
        return first or (compiled[0] if compiled else arms[0])
    for arm in arms:
        if arm.name == arm_name:
            return arm
    names = ", ".join(a.name for a in arms)
    raise ValueError(f"no arm named {arm_name!r} in the session (arms: {names})")


def _input_spec(source: Source, loaded: Loaded | None) -> dict[str, object] | None:
    """{"kind": "hook"} or {"kind": "shape", "dims": [...], "integer": bool, "vocab": int|None};
    None when the shape must be inferred from the model at run time."""
    text = source.input_shape
    if text:
        try:
            shape = parse_input_shape(text)
        except ConfigError:
            shape = None
        if shape is not None:
            return {
                "kind": "shape",
                "dims": list(shape.dims),
                "integer": shape.integer,
                "vocab": shape.vocab,
            }
    if loaded is not None and loaded.input_source == "hook":
        return {"kind": "hook"}
    m = _LOADED_INPUT.match(((loaded.input if loaded else None) or "").strip())
    if m:
        dims = [int(d) for d in m.group(1).replace(",", " ").split()]
        return {"kind": "shape", "dims": dims, "integer": m.group(2) != "float", "vocab": None}
    return None


def _build_expression(source: Source, loaded: Loaded | None) -> str | None:
    if source.factory:
        return source.factory
    if source.model:
        return f"{source.model}()"
    return loaded.model if loaded else None


def _torch_backend(arm: Arm) -> str:
    """The name torch.compile takes: the dynamo_eager arm is backend="eager"."""
    return "eager" if arm.backend == DYNAMO_EAGER else arm.backend


@dataclass(frozen=True)
class _Loop:
    """The session's loop kind, read defensively (a session file may hold anything): only
    known values turn into code."""

    inference: bool
    autocast: str | None  # "torch.bfloat16" / "torch.float16"
    scaler: bool  # fp16 training: torch.amp.GradScaler
    compiled_optimizer: bool

    @classmethod
    def of(cls, options: RunOptions, arm: Arm) -> _Loop:
        inference = options.loop == "inference"
        amp = options.amp
        return cls(
            inference=inference,
            autocast=AUTOCAST_DTYPES.get(amp) if amp is not None else None,
            scaler=amp == "fp16" and not inference,
            compiled_optimizer=options.compile_optimizer and not inference and arm.compiled,
        )

    def autocast_line(self) -> str:
        return f"torch.autocast(device_type=device.type, dtype={self.autocast})"

    def inference_modes(self) -> str:
        return "torch.inference_mode()" + (f", {self.autocast_line()}" if self.autocast else "")

    def setup(self) -> str:
        if not self.scaler:
            return ""
        return "\n    scaler = torch.amp.GradScaler(device.type)  # fp16 training: loss scaling"

    def optimizer_lines(self, arm: Arm) -> list[str]:
        """The arm's compiled optimizer step, as PyTorch's compiled-optimizer recipe has it."""
        if not self.compiled_optimizer:
            return []
        call = "scaler.step(optimizer)" if self.scaler else "optimizer.step()"
        return [
            f"@torch.compile(backend={_torch_backend(arm)!r}, fullgraph=False)"
            "  # the optimizer step, compiled",
            "def opt_step():",
            f"    {call}",
        ]

    def step(self) -> str:
        """The timed step's lines."""
        if self.inference:
            modes = self.inference_modes()
            lines = [f"with {modes}:", "    out = runner(*batch_args, **batch_kwargs)"]
            return textwrap.indent("\n".join(lines), " " * 8)
        forward = ["out = runner(*batch_args, **batch_kwargs)", "loss = compute_loss(out, targets)"]
        if self.autocast:
            forward = [f"with {self.autocast_line()}:", *("    " + f for f in forward)]
        lines = [*forward, "scaler.scale(loss).backward()" if self.scaler else "loss.backward()"]
        if self.compiled_optimizer:
            lines.append("opt_step()")
        else:
            lines.append("scaler.step(optimizer)" if self.scaler else "optimizer.step()")
        if self.scaler:
            lines.append("scaler.update()")
        lines.append("optimizer.zero_grad()")
        return textwrap.indent("\n".join(lines), " " * 8)

    def after_step(self) -> str:
        """Inference has no loss; tcprof reports the loss of the output, computed untimed."""
        if not self.inference:
            return ""
        modes = self.inference_modes()
        lines = [
            "# untimed: inference has no loss; tcprof reports the loss of the output as a check",
            f"with {modes}:",
            "    loss = compute_loss(out, targets)",
        ]
        return "\n" + textwrap.indent("\n".join(lines), " " * 8)


def _compile_block(arm: Arm, debug: DebugFlags, loop: _Loop) -> str:
    if not arm.compiled:
        return (
            "# This arm is plain eager PyTorch. To try torch.compile, replace the line below with\n"
            '#   runner = torch.compile(model, backend="inductor", mode=None, dynamic=None, fullgraph=False)\n'
            "runner = model"
        )
    lines = []
    logs = list(debug.logs)
    if logs:
        args = ", ".join(
            f"{a}=logging.DEBUG" if a == "dynamic" else f"{a}=True"
            for a in logs
            if re.fullmatch(r"[A-Za-z_]\w*", a)
        )
        lines.append(f"torch._logging.set_logs({args})  # what tcprof printed for this arm")
    if debug.verbose:
        lines.append("torch._dynamo.config.verbose = True")
    if debug.suppress_errors:
        lines.append(
            "torch._dynamo.config.suppress_errors = True  # hides compile failures: "
            "a failing frame silently runs eagerly"
        )
    args = (
        f"backend={_torch_backend(arm)!r}, mode={arm.mode!r}, "
        f"dynamic={arm.dynamic!r}, fullgraph={bool(arm.fullgraph)!r}"
    )
    regional = arm.loaded.regional if arm.loaded else None
    if regional is None:
        lines.append(f"runner = torch.compile(model, {args})")
        return "\n".join(lines + loop.optimizer_lines(arm))
    where, cls = regional.where, str(regional.block_class)
    if where:
        lines.append(f"for block in model.get_submodule({where!r}):  # regional compilation")
    else:
        lines += [
            "blocks, seen = [], set()  # regional compilation: the outermost blocks of this class",
            "for name, m in model.named_modules():",
            f"    if type(m).__name__ == {cls!r} and not any(name.startswith(s + '.') for s in seen):",
            "        blocks.append(m)",
            "        seen.add(name)",
            "for block in blocks:",
        ]
    lines += [f"    block.compile({args})", "runner = model"]
    return "\n".join(lines + loop.optimizer_lines(arm))


def _with_parallel(arm: Arm, block: str) -> str:
    """A distributed arm's lines before its compile: the process group and the wrapper, as the
    arm's ranks ran them (the script then runs under torchrun, one process per rank)."""
    parallel = arm.loaded.parallel if arm.loaded else None
    if parallel is None or parallel.kind not in ("ddp", "fsdp"):
        return block
    kind, ranks = str(parallel.kind), parallel.world_size or 2
    lines = [
        f"# a distributed arm ({kind}, {ranks} ranks): run this script with PyTorch's launcher,",
        f"#   torchrun --standalone --nproc-per-node {ranks} reproduce.py",
        f"#   (OMP_NUM_THREADS=<physical cores // {ranks}>; each rank's batch size is --batch-size)",
        "import torch.distributed as dist",
        'dist.init_process_group("nccl" if device.type == "cuda" else "gloo")',
    ]
    if kind == "ddp":
        lines += [
            "from torch.nn.parallel import DistributedDataParallel",
            "model = DistributedDataParallel(model)  # then torch.compile, as PyTorch recommends",
        ]
    else:
        where = parallel.sharded_where
        lines.append("from torch.distributed.fsdp import fully_shard")
        if where:
            lines += [
                f"for block in model.get_submodule({where!r}):  # each repeated block",
                "    fully_shard(block)",
            ]
        lines += [
            "fully_shard(model)  # and the root; then torch.compile",
            "optimizer = make_optimizer(model.parameters())  # FSDP replaced the parameters",
        ]
    return "\n".join([*lines, block])


def _mark_dynamic_lines(dim: int) -> list[str]:
    return [
        f"# the applied advice: dimension {dim} of every input is dynamic, so a new size in it",
        "# reuses the compiled graph instead of recompiling",
        "for batch_args, batch_kwargs, _ in batches:",
        "    for t in (*batch_args, *batch_kwargs.values()):",
        f"        if isinstance(t, torch.Tensor) and t.dim() > {dim}:",
        f"            torch._dynamo.mark_dynamic(t, {dim})",
    ]


def _with_marks(arm: Arm, specs: tuple[ArmSpec, ...], block: str) -> str:
    """The compile block, after the advice's mark_dynamic lines where the arm's spec applied
    them (its spec among the config's arms, by the arm's index)."""
    index = arm.index
    spec = specs[index] if 0 <= index < len(specs) else None
    if spec is None or spec.mark_dynamic is None:
        return block
    return "\n".join([*_mark_dynamic_lines(spec.mark_dynamic), block])


def render_reproducer(model: SessionModel, arm_name: str | None = None) -> str:
    """The script for `arm_name` (default: the first compiled arm, else the first arm); for a
    session of the user's own script, the command that measured it (script_reproduce.py)."""
    if model.options.script is not None:
        from tcprof.profiler.report.script_reproduce import render

        return render(model)
    arm = _find_arm(model, arm_name)
    options = model.options
    source = options.source
    config: dict[str, Any] = thaw(model.config)  # for config's own readers of the options
    loaded = arm.loaded or next((a.loaded for a in model.arms if a.loaded), None)
    batch_sizes = options.batch_sizes
    results = arm.rows
    batch_size = batch_sizes[0] if batch_sizes else (results[0].batch_size if results else 8)
    first = next((r for r in results if r.batch_size == batch_size), None)
    expected = first.first_loss if first else None
    warmup = options.warmup or 0
    steps = options.steps or 10
    loop = _Loop.of(options, arm)
    fail_on_recompile = options.debug.fail_on_recompile and arm.compiled
    block = _with_parallel(arm, _compile_block(arm, options.debug, loop))
    values = {
        "arm": _comment(arm.name),
        "model_label": _comment(_build_expression(source, loaded) or "the default model"),
        "file_name": _comment(Path(source.path or "model.py").name),
        "model_file": repr(source.path or "model.py"),
        "build": repr(_build_expression(source, loaded)),
        "weights": repr(options.weights),
        "input_spec": repr(_input_spec(source, loaded)),
        "batch_size": repr(int(batch_size)),
        "seed": repr(options.seed or 0),
        "lr": repr(float(options.lr or 0.01)),
        "optimizer": repr(options.optimizer or "sgd"),
        "device": repr(options.device or "cpu"),
        "warmup": repr(warmup),
        "total_steps": repr(1 + warmup + steps),
        "expected": repr(expected),
        "compile_block": textwrap.indent(_with_marks(arm, arms_of(config), block), "    "),
        "loop_text": _comment(loop_text(config)),
        "where": _comment(where_text(config)),
        "loop": repr("inference" if loop.inference else "train"),
        "channels_last": repr(options.channels_last),
        "loop_setup": loop.setup(),
        "step_block": loop.step(),
        "after_step": loop.after_step(),
        "fail_on_recompile": repr(fail_on_recompile),
        "first_note": " (includes compiling)" if arm.compiled else "",
        "backend": _comment(arm.backend),
    }
    template = Template(TEMPLATE.read_text(encoding="utf-8"))
    return template.substitute(values)
