"""A script's command as the user types it (`python train.py ARGS`, `python -m pkg.mod ARGS`)
made into a `ScriptSource`, and the phases its placeholders ask for.

Shared by `tcprof run [options] -- python train.py ARGS` (recording/script_args.py) and the window's
Open script… (app/setup/script_options.py), so both build the same run from the same words.
The script runs in each worker, never here: this only finds its file.
"""

from __future__ import annotations

import dataclasses
import os
import sys
from pathlib import Path
from typing import Any

from tcprof.profiler.config.choices import ConfigError
from tcprof.profiler.config.parse import parse_batch_sizes
from tcprof.profiler.config.script import BATCH_SIZE, DEFAULT_NO_STEP_TIMEOUT_S, ScriptSource

# interpreter options that change nothing tcprof measures (taken and dropped); -c is refused
_FLAG_OPTIONS = ("-u", "-B", "-O", "-OO", "-s", "-S", "-E", "-I", "-P", "-b", "-bb", "-q")
_VALUE_OPTIONS = ("-W", "-X")


def script_from_command(
    words: list[str],
    cwd: str,
    step_on: str = "optimizer",
    sweep: str | None = None,
    no_step_timeout_s: float = DEFAULT_NO_STEP_TIMEOUT_S,
    unit: str | None = None,
) -> ScriptSource:
    """The ScriptSource of a command's words (the interpreter word first, or the script),
    run in `cwd`; ConfigError when they name no script. `sweep`: the placeholder whose values
    are the phases (the name of `--sweep NAME=...`)."""
    words = list(words)
    if not words:
        raise ConfigError("nothing after --: give the script's command, e.g. -- python train.py")
    python = "python"
    if not words[0].endswith(".py"):
        python = words.pop(0)
        if "python" not in os.path.basename(python):
            raise ConfigError(
                f"-- {python} ...: tcprof runs Python scripts (-- python train.py ARGS, "
                "or -- python -m package.module ARGS)"
            )
    words = _drop_interpreter_options(words)
    common: dict[str, Any] = {"cwd": cwd, "python": python, "step_on": step_on, "sweep": sweep}
    common["unit"] = unit
    if words and words[0] == "-m":
        if len(words) < 2:
            raise ConfigError("-m needs a module name: -- python -m package.module ARGS")
        module = words[1]
        return ScriptSource(
            path=find_module(module, cwd),
            module=module,
            args=tuple(words[2:]),
            no_step_timeout_s=no_step_timeout_s,
            **common,
        )
    if not words:
        raise ConfigError("no script after the interpreter: -- python train.py ARGS")
    path = Path(words[0]).expanduser()
    if not path.is_absolute():
        path = Path(cwd) / path
    if not path.is_file():
        raise ConfigError(f"no such script: {words[0]}")
    return ScriptSource(
        path=str(path.absolute()),
        args=tuple(words[1:]),
        no_step_timeout_s=no_step_timeout_s,
        **common,
    )


def _drop_interpreter_options(words: list[str]) -> list[str]:
    while words and words[0].startswith("-") and words[0] != "-m":
        option = words.pop(0)
        if option == "-c":
            raise ConfigError("-c runs a command, not a script: save it as a file")
        if option in _VALUE_OPTIONS:
            if words:
                words.pop(0)
        elif option not in _FLAG_OPTIONS and not option.startswith(_VALUE_OPTIONS):
            raise ConfigError(f"the interpreter option {option} is not one tcprof can pass on")
    return words


def find_module(module: str, cwd: str) -> str:
    """The file `python -m module` runs from `cwd`, found without importing anything: its
    `.py` file, or its package's `__main__.py`, under the working directory or sys.path."""
    parts = module.split(".")
    for base in [cwd, *sys.path]:
        root = Path(base or cwd).joinpath(*parts)
        for candidate in (root.with_suffix(".py"), root / "__main__.py"):
            if candidate.is_file():
                return str(candidate.absolute())
    raise ConfigError(f"no module {module} under {cwd} (python -m runs it from there)")


def sweep_name(sweep: str | None) -> str | None:
    """NAME of a `--sweep NAME=V1,V2` (None: no sweep)."""
    return sweep.split("=", 1)[0].strip() if sweep else None


def script_phases(
    script: ScriptSource, sweep: str | None, batch_sizes: str, batch_sizes_given: bool
) -> tuple[tuple[int, ...], ScriptSource]:
    """The phases' values (the run's batch sizes) and the script with its sweep named: the
    `sweep` (NAME=V1,V2) values, else the batch sizes for a {batch_size} placeholder, else one
    phase. Batch sizes given for arguments with no {batch_size} are a usage error."""
    if sweep:
        name, _, values = sweep.partition("=")
        if not name.strip() or not values.strip():
            raise ConfigError("--sweep is NAME=V1,V2,... e.g. --sweep batch_size=8,16")
        odd = next((v for v in values.replace(",", " ").split() if not v.isdigit()), None)
        if odd is not None:
            raise ConfigError(
                f"--sweep {name}: {odd!r} is not a positive integer; a sweep's values are whole "
                "numbers, each run as a batch-size phase (for other values, one run per value)"
            )
        try:
            return parse_batch_sizes(values), script
        except ConfigError as exc:
            raise ConfigError(f"--sweep {name}: {exc}") from exc
    if BATCH_SIZE in script.placeholders():
        return parse_batch_sizes(batch_sizes), dataclasses.replace(script, sweep=BATCH_SIZE)
    if batch_sizes_given:
        raise ConfigError(
            "--batch-sizes fills {batch_size} in the script's arguments, and they have none "
            "(write --batch_size={batch_size} where the script takes it)"
        )
    return (1,), script
