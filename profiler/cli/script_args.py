"""`tcprof run [tcprof options] -- python train.py ARGS`: the script command after `--`, and
the options that only a script takes (`--sweep`, `--step-on`, `--no-step-timeout`).

Everything after the first `--` is the user's command as they type it: the interpreter word
(`python`, `python3`, a path to one; or the script itself), then `train.py ARGS` or
`-m package.module ARGS`. The script runs in each worker, never here: this only finds its file.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

from tcprof.profiler.config import MIN_BLOCK_MS, ConfigError, ScriptSource
from tcprof.profiler.config.script import BATCH_SIZE, DEFAULT_NO_STEP_TIMEOUT_S, STEP_ON

# interpreter options that change nothing tcprof measures (taken and dropped); -c is refused
_FLAG_OPTIONS = ("-u", "-B", "-O", "-OO", "-s", "-S", "-E", "-I", "-P", "-b", "-bb", "-q")
_VALUE_OPTIONS = ("-W", "-X")


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
        help="a script with no step this long after it starts is not a training script "
        "(default %(default)g s)",
    )


def check_no_script_options(args: argparse.Namespace) -> None:
    """The script's own options, given for a model file: a usage error rather than ignored."""
    given = [
        flag
        for flag, value, default in (
            ("--sweep", getattr(args, "sweep", None), None),
            ("--step-on", getattr(args, "step_on", "optimizer"), "optimizer"),
            (
                "--no-step-timeout",
                getattr(args, "no_step_timeout", None),
                DEFAULT_NO_STEP_TIMEOUT_S,
            ),
        )
        if value is not None and value != default
    ]
    if given:
        raise ConfigError(
            f"{given[0]} applies to a script: tcprof run [options] -- python train.py ARGS"
        )


def script_source(args: argparse.Namespace, command: list[str]) -> ScriptSource:
    """The ScriptSource of a command line (ConfigError when it names no script)."""
    if args.model_file or args.example:
        raise ConfigError(
            "give a model file or a script after --, not both "
            "(tcprof run [options] -- python train.py ARGS)"
        )
    if getattr(args, "min_block_ms", 0) not in (0, MIN_BLOCK_MS):
        raise ConfigError(
            "--min-block-ms adds steps to a model file's blocks; a script's blocks are exactly "
            "--steps / --blocks of its own steps (it has only so many): raise --steps instead"
        )
    words = list(command)
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
    cwd = os.getcwd()
    sweep = _sweep_name(args)
    common = {"cwd": cwd, "python": python, "step_on": args.step_on, "sweep": sweep}
    common["no_step_timeout_s"] = args.no_step_timeout
    if words and words[0] == "-m":
        if len(words) < 2:
            raise ConfigError("-m needs a module name: -- python -m package.module ARGS")
        module = words[1]
        return ScriptSource(
            path=find_module(module, cwd), module=module, args=tuple(words[2:]), **common
        )
    if not words:
        raise ConfigError("no script after the interpreter: -- python train.py ARGS")
    path = Path(words[0]).expanduser()
    if not path.is_file():
        raise ConfigError(f"no such script: {words[0]}")
    return ScriptSource(path=str(path.absolute()), args=tuple(words[1:]), **common)


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


def _sweep_name(args: argparse.Namespace) -> str | None:
    if args.sweep:
        return str(args.sweep.split("=", 1)[0].strip())
    return None


def phases(args: argparse.Namespace, script: ScriptSource) -> tuple[tuple[int, ...], ScriptSource]:
    """The phases' values (the run's batch sizes) and the script with its sweep named: the
    --sweep values, else --batch-sizes for a {batch_size} placeholder, else one phase."""
    from tcprof.profiler.config import parse_batch_sizes

    if args.sweep:
        name, _, values = args.sweep.partition("=")
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
        return parse_batch_sizes(args.batch_sizes), _named(script, BATCH_SIZE)
    if args.batch_sizes != "32":
        raise ConfigError(
            "--batch-sizes fills {batch_size} in the script's arguments, and they have none "
            "(write --batch_size={batch_size} where the script takes it)"
        )
    return (1,), script


def _named(script: ScriptSource, sweep: str) -> ScriptSource:
    import dataclasses

    return dataclasses.replace(script, sweep=sweep)
