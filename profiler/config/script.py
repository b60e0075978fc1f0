"""A user's training script run unchanged (`tcprof run [options] -- python train.py ARGS`):
what to run, where, and how its steps are found.

The script runs in each arm's worker exactly as `python` would run it: its arguments, its own
folder first on `sys.path`, the working directory tcprof was started in, `__name__ ==
"__main__"`. A `{name}` in its arguments is a placeholder: one configuration per value of
`--sweep name=1,2,4` (or, for `{batch_size}`, of `--batch-sizes`), run as tcprof's batch-size
phases. Pure data: the worker reads it from the run's config.
"""

from __future__ import annotations

import dataclasses
import re
from dataclasses import dataclass
from typing import Any

from tcprof.profiler.config.choices import ConfigError

STEP_ON = ("optimizer", "forward")  # what a step is: an optimizer step, or a forward call
# what a script's throughput counts (--unit; None: tokens where its model is given token ids,
# else samples, the batch's leading dimension, else steps)
WORK_UNITS = ("samples", "tokens", "steps")
DEFAULT_NO_STEP_TIMEOUT_S = 120.0  # no first step within this: not a training script
BATCH_SIZE = "batch_size"  # the placeholder --batch-sizes fills
# Placeholders are identifiers in braces, so JSON or shell braces in an argument are left alone.
PLACEHOLDER = re.compile(r"\{([A-Za-z_][A-Za-z0-9_]*)\}")
# Options of a model file's generated loop: a script runs its own loop, so they cannot apply.
NOT_FOR_SCRIPTS = {
    "loop": "--loop",
    "amp": "--amp",
    "channels_last": "--channels-last",
    "compile_optimizer": "--compile-optimizer",
    "weights": "--weights",
    "save_weights": "--save-weights",
    "profile_steps": "--profile-steps",
    "apply_advice": "--apply-advice",
}
# `--nproc N` for a script: torchrun runs it, N ranks, and the script joins its own process
# group from the environment and wraps its own model (the `parallel` a script run records)
TORCHRUN = "torchrun"


@dataclass(frozen=True)
class ScriptSource:
    """The script and how it is run. `args` keep their placeholders; `argv_for` fills them."""

    path: str  # the script's file, absolute (for -m: the module's file, as found from cwd)
    args: tuple[str, ...] = ()  # its arguments as typed, placeholders included
    module: str | None = None  # `python -m module`: the module's dotted name
    cwd: str = "."  # the working directory it runs in (where tcprof was started)
    python: str = "python"  # the interpreter word typed before it (recorded, never run)
    step_on: str = "optimizer"  # optimizer | forward
    sweep: str | None = None  # the placeholder whose values are the phases
    no_step_timeout_s: float = DEFAULT_NO_STEP_TIMEOUT_S
    unit: str | None = None  # samples | tokens | steps; None: as its inputs show (WORK_UNITS)

    def placeholders(self) -> list[str]:
        """The placeholder names in the arguments, in order of first appearance."""
        names: list[str] = []
        for arg in self.args:
            for name in PLACEHOLDER.findall(arg):
                if name not in names:
                    names.append(name)
        return names

    def argv_for(self, value: int | None) -> list[str]:
        """sys.argv[1:] for one phase: the sweep's placeholder replaced by `value`."""
        if self.sweep is None or value is None:
            return list(self.args)
        return [arg.replace("{" + self.sweep + "}", str(value)) for arg in self.args]

    def command_text(self, value: int | None = None) -> str:
        """The command line as the user would type it (for the reports and reproduce)."""
        target = ["-m", self.module] if self.module else [self.path]
        return " ".join([self.python, *target, *(_quoted(a) for a in self.argv_for(value))])

    def to_dict(self) -> dict[str, Any]:
        return {**dataclasses.asdict(self), "args": list(self.args)}

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> ScriptSource:
        known = {f.name for f in dataclasses.fields(cls)}
        kw = {k: v for k, v in data.items() if k in known}
        kw["args"] = tuple(kw.get("args") or ())
        return cls(**kw)

    def check(self) -> None:
        if self.step_on not in STEP_ON:
            raise ConfigError(f"--step-on is one of {', '.join(STEP_ON)}, not {self.step_on!r}")
        if self.unit is not None and self.unit not in WORK_UNITS:
            raise ConfigError(f"--unit is one of {', '.join(WORK_UNITS)}, not {self.unit!r}")
        if not self.no_step_timeout_s > 0:
            raise ConfigError("--no-step-timeout must be a positive number of seconds")
        names = self.placeholders()
        others = [n for n in names if n != self.sweep]
        if others:
            raise ConfigError(
                f"{{{others[0]}}} in the script's arguments has no values: give "
                f"--sweep {others[0]}=1,2,4"
            )
        if self.sweep is not None and self.sweep not in names:
            raise ConfigError(
                f"--sweep {self.sweep}=...: the script's arguments have no {{{self.sweep}}} "
                "to fill (write it where the value goes, e.g. --batch_size={" + self.sweep + "})"
            )


def _quoted(arg: str) -> str:
    return (
        arg if arg and not re.search(r"[\s'\"\\$`]", arg) else "'" + arg.replace("'", "'\\''") + "'"
    )


def script_parallel(script: ScriptSource | None, nproc: object, parallel: str) -> str:
    """A run's `parallel` as stored: a script with --nproc 2 or more runs under torchrun; with
    one process it runs alone (a recorded torchrun kept with --nproc 1 is dropped)."""
    if script is None or parallel not in ("none", TORCHRUN):
        return parallel  # a model file's, or a script's ddp/fsdp: check_script_options refuses
    return TORCHRUN if isinstance(nproc, int) and nproc > 1 else "none"


def check_script_options(values: dict[str, Any]) -> None:
    """The run's options that a script cannot take (its own loop runs): a usage error naming
    the first one given."""
    defaults = {"loop": "train", "channels_last": False, "compile_optimizer": False}
    defaults.update(profile_steps=0, apply_advice=False)
    for field_name, option in NOT_FOR_SCRIPTS.items():
        value = values.get(field_name)
        if value not in (None, defaults.get(field_name)):
            raise ConfigError(
                f"{option} changes the loop tcprof writes for a model file; a script runs its "
                "own loop (drop the option, or set it in the script)"
            )
    if values.get("parallel", "none") not in ("none", TORCHRUN) or any(
        arm.get("parallel") is not None for arm in values["arms"]
    ):
        raise ConfigError(
            "--parallel / parallel= wrap a model file's model; a script wraps its own: "
            "give --nproc N alone (torchrun runs the script in N ranks)"
        )
    if values.get("nnodes", 1) > 1:
        raise ConfigError("--nnodes is not supported for scripts yet: one machine, --nproc N")
    if any(arm.get("regional") or arm.get("mark_dynamic") is not None for arm in values["arms"]):
        raise ConfigError(
            "regional= and mark_dynamic= arm options need a model file; for a script, "
            "compile options are the arm's backend, mode, dynamic and fullgraph"
        )
