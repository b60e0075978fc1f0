"""`tcprof run [tcprof options] -- python train.py ARGS`: the script command after `--`, and
the options that only a script takes (`--sweep`, `--step-on`, `--no-step-timeout`, `--unit`:
declared with the others, in declared.py).

Everything after the first `--` is the user's command as they type it: the interpreter word
(`python`, `python3`, a path to one; or the script itself), then `train.py ARGS` or
`-m package.module ARGS`. The script runs in each worker, never here: this only finds its file.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import Any

from tcprof.profiler.config import MIN_BLOCK_MS, ConfigError, ScriptSource
from tcprof.profiler.config.script_command import (
    find_module,
    script_from_command,
    script_phases,
    sweep_name,
)
from tcprof.profiler.recording.declared import RUN_OPTIONS, SCRIPT

__all__ = ["find_module", "phases", "script_source", "split_command"]


def split_command(argv: list[str]) -> tuple[list[str], list[str] | None]:
    """(tcprof's own arguments, the script command after `--` or None) for `tcprof run`."""
    if not argv or argv[0] != "run" or "--" not in argv:
        return argv, None
    cut = argv.index("--")
    return argv[:cut], argv[cut + 1 :]


def check_no_script_options(options: Mapping[str, Any]) -> None:
    """The script's own options, given for a model file: a usage error rather than ignored."""
    given = [
        option.flag
        for option in RUN_OPTIONS
        if option.group == SCRIPT and options.get(option.dest, option.default) != option.default
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
