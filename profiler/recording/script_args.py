"""`tcprof run [tcprof options] -- python train.py ARGS`: the script command after `--`, and
the options that only a script takes (`--sweep`, `--step-on`, `--no-step-timeout`, `--unit`).

Everything after the first `--` is the user's command as they type it: the interpreter word
(`python`, `python3`, a path to one; or the script itself), then `train.py ARGS` or
`-m package.module ARGS`. The script runs in each worker, never here: this only finds its file.
"""

from __future__ import annotations

import argparse
import os
from collections.abc import Mapping
from typing import Any

from tcprof.profiler.config import MIN_BLOCK_MS, ConfigError, ScriptSource
from tcprof.profiler.config.script import DEFAULT_NO_STEP_TIMEOUT_S, STEP_ON, WORK_UNITS
from tcprof.profiler.config.script_command import (
    find_module,
    script_from_command,
    script_phases,
    sweep_name,
)

__all__ = ["find_module", "phases", "script_source", "split_command"]


def split_command(argv: list[str]) -> tuple[list[str], list[str] | None]:
    """(tcprof's own arguments, the script command after `--` or None) for `tcprof run`."""
    if not argv or argv[0] != "run" or "--" not in argv:
        return argv, None
    cut = argv.index("--")
    return argv[:cut], argv[cut + 1 :]


def add_script_options(run: argparse.ArgumentParser) -> None:
    group = run.add_argument_group("script (tcprof run [options] -- python train.py ARGS)")
    group.add_argument(
        "--sweep",
        metavar="NAME=V1,V2",
        help="one configuration per value of {NAME} in the script's arguments, run as the "
        "batch-size phases (e.g. --sweep batch_size=8,16 with --batch_size={batch_size}); "
        "{batch_size} also takes --batch-sizes",
    )
    group.add_argument(
        "--step-on",
        choices=STEP_ON,
        default="optimizer",
        help="what a step of the script is: an optimizer step (default; gradient accumulation "
        "is one step) or a forward call of its model (an inference script)",
    )
    group.add_argument(
        "--no-step-timeout",
        type=float,
        default=DEFAULT_NO_STEP_TIMEOUT_S,
        metavar="S",
        help="a script with no step after this long of its own time (its compiles not "
        "counted) is not a training script (default %(default)g s)",
    )
    group.add_argument(
        "--unit",
        choices=WORK_UNITS,
        default=None,
        help="what the script's throughput counts: samples (the batch's leading dimension), "
        "tokens (batch x sequence of the token ids its model is given, padding counted) or "
        "steps; each summed over a step's micro-batches (default: tokens where the model is "
        "given token ids, else samples)",
    )


def check_no_script_options(options: Mapping[str, Any]) -> None:
    """The script's own options, given for a model file: a usage error rather than ignored."""
    given = [
        flag
        for flag, value, default in (
            ("--sweep", options.get("sweep", None), None),
            ("--step-on", options.get("step_on", "optimizer"), "optimizer"),
            (
                "--no-step-timeout",
                options.get("no_step_timeout", None),
                DEFAULT_NO_STEP_TIMEOUT_S,
            ),
            ("--unit", options.get("unit", None), None),
        )
        if value is not None and value != default
    ]
    if given:
        raise ConfigError(
            f"{given[0]} applies to a script: tcprof run [options] -- python train.py ARGS"
        )


def script_source(options: Mapping[str, Any], command: list[str]) -> ScriptSource:
    """The ScriptSource of a command line (ConfigError when it names no script), run in the
    directory tcprof was started in (config/script_command.py, shared with the window)."""
    if options["model_file"] or options["example"]:
        raise ConfigError(
            "give a model file or a script after --, not both "
            "(tcprof run [options] -- python train.py ARGS)"
        )
    if options.get("min_block_ms", 0) not in (0, MIN_BLOCK_MS):
        raise ConfigError(
            "--min-block-ms adds steps to a model file's blocks; a script's blocks are exactly "
            "--steps / --blocks of its own steps (it has only so many): raise --steps instead"
        )
    return script_from_command(
        command,
        os.getcwd(),
        step_on=options["step_on"],
        sweep=sweep_name(options["sweep"]),
        no_step_timeout_s=options["no_step_timeout"],
        unit=options["unit"],
    )


def phases(
    options: Mapping[str, Any], script: ScriptSource
) -> tuple[tuple[int, ...], ScriptSource]:
    """The phases' values (the run's batch sizes) and the script with its sweep named: the
    --sweep values, else --batch-sizes for a {batch_size} placeholder, else one phase."""
    return script_phases(
        script, options["sweep"], options["batch_sizes"], options["batch_sizes"] != "32"
    )
