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
    ConfigError,
    arms_of,
    loop_text,
    parse_input_shape,
    where_text,
)
from tcprof.profiler.config.resources import resource_path

TEMPLATE = resource_path("report", "reproduce_template.py.txt")
AUTOCAST_DTYPES = {"bf16": "torch.bfloat16", "fp16": "torch.float16"}
_LOADED_INPUT = re.compile(r"^\(B,\s*([\d,\s]+)\)\s*(float|int tokens)$")


def _comment(value: Any) -> str:
    """Text safe on one comment line."""
    return " ".join(str(value).split())


def _find_arm(session_dict: dict[str, Any], arm_name: str | None) -> dict[str, Any]:
    arms = session_dict.get("arms") or []
    if not arms:
        raise ValueError("the session has no arms")
    if arm_name is None:
        diverged = (session_dict.get("ladder") or {}).get("first_divergence")
        compiled = [a for a in arms if a.get("backend") != "eager"]
        # a ladder's reproducer is the stage that diverged: the minifier command runs it
        first = next((a for a in compiled if a.get("backend") == diverged), None)
        return first or (compiled[0] if compiled else arms[0])
    for arm in arms:
        if arm.get("name") == arm_name:
            return arm
    names = ", ".join(str(a.get("name")) for a in arms)
    raise ValueError(f"no arm named {arm_name!r} in the session (arms: {names})")


def _input_spec(source: dict[str, Any], loaded: dict[str, Any]) -> dict[str, Any] | None:
    """{"kind": "hook"} or {"kind": "shape", "dims": [...], "integer": bool, "vocab": int|None};
    None when the shape must be inferred from the model at run time."""
    text = source.get("input_shape")
    if text:
        try:
            shape = parse_input_shape(str(text))
        except ConfigError:
            shape = None
        if shape is not None:
            return {
                "kind": "shape",
                "dims": list(shape.dims),
                "integer": shape.integer,
                "vocab": shape.vocab,
            }
    if loaded.get("input_source") == "hook":
        return {"kind": "hook"}
    m = _LOADED_INPUT.match(str(loaded.get("input") or "").strip())
    if m:
        dims = [int(d) for d in m.group(1).replace(",", " ").split()]
        return {"kind": "shape", "dims": dims, "integer": m.group(2) != "float", "vocab": None}
    return None


def _build_expression(source: dict[str, Any], loaded: dict[str, Any]) -> str | None:
    if source.get("factory"):
        return str(source["factory"])
    if source.get("model"):
        return f"{source['model']}()"
    how = loaded.get("model")
    return str(how) if how else None


def _torch_backend(arm: dict[str, Any]) -> str:
    """The name torch.compile takes: the dynamo_eager arm is backend="eager"."""
    backend = str(arm.get("backend"))
    return "eager" if backend == DYNAMO_EAGER else backend


@dataclass(frozen=True)
class _Loop:
    """The session's loop kind, read defensively (a session file may hold anything): only
    known values turn into code."""

    inference: bool
    autocast: str | None  # "torch.bfloat16" / "torch.float16"
    scaler: bool  # fp16 training: torch.amp.GradScaler
    compiled_optimizer: bool

    @classmethod
    def of(cls, config: dict[str, Any], arm: dict[str, Any]) -> _Loop:
        inference = config.get("loop") == "inference"
        amp = config.get("amp")
        return cls(
            inference=inference,
            autocast=AUTOCAST_DTYPES.get(amp) if isinstance(amp, str) else None,
            scaler=amp == "fp16" and not inference,
            compiled_optimizer=bool(config.get("compile_optimizer"))
            and not inference
            and arm.get("backend") != "eager",
        )

    def autocast_line(self) -> str:
        return f"torch.autocast(device_type=device.type, dtype={self.autocast})"

    def inference_modes(self) -> str:
        return "torch.inference_mode()" + (f", {self.autocast_line()}" if self.autocast else "")

    def setup(self) -> str:
        if not self.scaler:
            return ""
        return "\n    scaler = torch.amp.GradScaler(device.type)  # fp16 training: loss scaling"

    def optimizer_lines(self, arm: dict[str, Any]) -> list[str]:
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


def _compile_block(arm: dict[str, Any], debug: dict[str, Any], loop: _Loop) -> str:
    if arm.get("backend") == "eager":
        return (
            "# This arm is plain eager PyTorch. To try torch.compile, replace the line below with\n"
            '#   runner = torch.compile(model, backend="inductor", mode=None, dynamic=None, fullgraph=False)\n'
            "runner = model"
        )
    opts = arm.get("options") or {}
    lines = []
    logs = [str(a) for a in debug.get("logs") or []]
    if logs:
        args = ", ".join(
            f"{a}=logging.DEBUG" if a == "dynamic" else f"{a}=True"
            for a in logs
            if re.fullmatch(r"[A-Za-z_]\w*", a)
        )
        lines.append(f"torch._logging.set_logs({args})  # what tcprof printed for this arm")
    if debug.get("verbose"):
        lines.append("torch._dynamo.config.verbose = True")
    if debug.get("suppress_errors"):
        lines.append(
            "torch._dynamo.config.suppress_errors = True  # hides compile failures: "
            "a failing frame silently runs eagerly"
        )
    args = (
        f"backend={_torch_backend(arm)!r}, mode={opts.get('mode')!r}, "
        f"dynamic={opts.get('dynamic')!r}, fullgraph={bool(opts.get('fullgraph'))!r}"
    )
    regional = (arm.get("model") or {}).get("regional")
    if not isinstance(regional, dict):
        lines.append(f"runner = torch.compile(model, {args})")
        return "\n".join(lines + loop.optimizer_lines(arm))
    where, cls = regional.get("where"), str(regional.get("class"))
    if where:
        lines.append(f"for block in model.get_submodule({str(where)!r}):  # regional compilation")
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


def _with_parallel(arm: dict[str, Any], block: str) -> str:
    """A distributed arm's lines before its compile: the process group and the wrapper, as the
    arm's ranks ran them (the script then runs under torchrun, one process per rank)."""
    parallel = (arm.get("model") or {}).get("parallel")
    if not isinstance(parallel, dict) or parallel.get("parallel") not in ("ddp", "fsdp"):
        return block
    kind, ranks = str(parallel["parallel"]), int(parallel.get("world_size") or 2)
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
        blocks = parallel.get("sharded_blocks")
        where = blocks.get("where") if isinstance(blocks, dict) else None
        lines.append("from torch.distributed.fsdp import fully_shard")
        if where:
            lines += [
                f"for block in model.get_submodule({str(where)!r}):  # each repeated block",
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


def _with_marks(arm: dict[str, Any], config: dict[str, Any], block: str) -> str:
    specs = arms_of(config)
    index = arm.get("index")
    spec = specs[index] if isinstance(index, int) and 0 <= index < len(specs) else None
    if spec is None or spec.mark_dynamic is None:
        return block
    return "\n".join([*_mark_dynamic_lines(spec.mark_dynamic), block])


def render_reproducer(session_dict: dict[str, Any], arm_name: str | None = None) -> str:
    """The script for `arm_name` (default: the first compiled arm, else the first arm); for a
    session of the user's own script, the command that measured it (script_reproduce.py)."""
    if (session_dict.get("config") or {}).get("script"):
        from tcprof.profiler.report.script_reproduce import render

        return render(session_dict)
    arm = _find_arm(session_dict, arm_name)
    config = session_dict.get("config") or {}
    source = config.get("source") or {}
    debug = config.get("debug") or {}
    loaded = arm.get("model") or next(
        (a.get("model") for a in session_dict.get("arms") or [] if a.get("model")), None
    )
    loaded = loaded or {}
    batch_sizes = list(config.get("batch_sizes") or [])
    results = arm.get("results") or []
    batch_size = batch_sizes[0] if batch_sizes else (results[0]["batch_size"] if results else 8)
    first: dict[str, Any] = next((r for r in results if r.get("batch_size") == batch_size), {})
    expected = first.get("first_loss")
    warmup = int(config.get("warmup") or 0)
    steps = int(config.get("steps") or 10)
    compiled = arm.get("backend") != "eager"
    loop = _Loop.of(config, arm)
    fail_on_recompile = bool(debug.get("fail_on_recompile")) and compiled
    values = {
        "arm": _comment(arm.get("name")),
        "model_label": _comment(_build_expression(source, loaded) or "the default model"),
        "file_name": _comment(Path(str(source.get("path") or "model.py")).name),
        "model_file": repr(str(source.get("path") or "model.py")),
        "build": repr(_build_expression(source, loaded)),
        "weights": repr(config.get("weights")),
        "input_spec": repr(_input_spec(source, loaded)),
        "batch_size": repr(int(batch_size)),
        "seed": repr(int(config.get("seed") or 0)),
        "lr": repr(float(config.get("lr") or 0.01)),
        "optimizer": repr(str(config.get("optimizer") or "sgd")),
        "device": repr(str(config.get("device") or "cpu")),
        "warmup": repr(warmup),
        "total_steps": repr(1 + warmup + steps),
        "expected": repr(expected if isinstance(expected, (int, float)) else None),
        "compile_block": textwrap.indent(
            _with_marks(arm, config, _with_parallel(arm, _compile_block(arm, debug, loop))), "    "
        ),
        "loop_text": _comment(loop_text(config)),
        "where": _comment(where_text(config)),
        "loop": repr("inference" if loop.inference else "train"),
        "channels_last": repr(bool(config.get("channels_last"))),
        "loop_setup": loop.setup(),
        "step_block": loop.step(),
        "after_step": loop.after_step(),
        "fail_on_recompile": repr(fail_on_recompile),
        "first_note": " (includes compiling)" if compiled else "",
        "backend": _comment(arm.get("backend")),
    }
    template = Template(TEMPLATE.read_text(encoding="utf-8"))
    return template.substitute(values)
