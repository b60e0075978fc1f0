"""`tcprof.run`'s keyword options, taken from a run's options as declared once
(recording/options.py, `tcprof run`'s parser): each option is a keyword with the same name
(underscored) and the same default, and a call's keywords are turned back into that command
line and parsed by that parser, so the values
are checked, converted and made into a RunConfig exactly as the CLI does, and a bad one raises
ValueError with the CLI's one-line message.

One name differs: the CLI's `--model NAME` (which class or factory of the file) is
`model_name=`, since `model=` is the model itself (a file, a class or a callable).
"""

from __future__ import annotations

import argparse
import difflib
import functools
import inspect
import os
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, NoReturn, cast

from tcprof.profiler.recording.options import add_run_parser

RENAMED = {"model": "model_name"}  # the CLI's dest -> the keyword
POSITIONAL = "model_file"  # the CLI's model file: `model=` of tcprof.run


class _RaisingParser(argparse.ArgumentParser):
    """The CLI's parser, but an error is a ValueError with argparse's one line."""

    def error(self, message: str) -> NoReturn:
        raise ValueError(message)


@dataclass(frozen=True)
class RunOption:
    """One option of `tcprof run` as a keyword: its CLI spelling, default, help and kind
    (flag: true or false; optional: a value, or True for the option alone; value; append)."""

    keyword: str
    dest: str
    flag: str
    default: Any
    help: str | None
    kind: str
    type: type | None
    choices: tuple[Any, ...] | None


def run_parser() -> argparse.ArgumentParser:
    """`tcprof run`'s parser, as the CLI builds it (its errors raise ValueError)."""
    parser = _RaisingParser(prog="tcprof")
    sub = cast("argparse._SubParsersAction[argparse.ArgumentParser]", parser.add_subparsers())
    return add_run_parser(sub)


def _kind(action: argparse.Action) -> str:
    if isinstance(action, argparse._StoreTrueAction):
        return "flag"
    if isinstance(action, argparse._AppendAction):
        return "append"
    if action.nargs == "?":
        return "optional"
    return "value"


@functools.cache
def run_options() -> Mapping[str, RunOption]:
    """Every option of `tcprof run`, by keyword, in the CLI's order."""
    out = {}
    for action in run_parser()._actions:
        if not action.option_strings or action.dest in ("help", POSITIONAL):
            continue
        keyword = RENAMED.get(action.dest, action.dest)
        out[keyword] = RunOption(
            keyword,
            action.dest,
            action.option_strings[-1],
            action.default,
            action.help,
            _kind(action),
            action.type if isinstance(action.type, type) else None,
            tuple(action.choices) if action.choices is not None else None,
        )
    return out


def unknown_keyword(name: str) -> TypeError:
    close = difflib.get_close_matches(name, list(run_options()), n=1)
    hint = f" (did you mean {close[0]!r}?)" if close else ""
    return TypeError(f"run() got an unexpected keyword argument {name!r}{hint}")


def _value(option: RunOption, value: object) -> str:
    if isinstance(value, (str, int, float, os.PathLike)) and not isinstance(value, bool):
        return os.fspath(value) if isinstance(value, os.PathLike) else str(value)
    raise ValueError(f"argument {option.flag}: takes a value, not {value!r}")


def to_argv(options: Mapping[str, object]) -> list[str]:
    """The command line that says what the keywords say (None: the option's default)."""
    argv: list[str] = []
    known = run_options()
    for name, value in options.items():
        option = known.get(name)
        if option is None:
            raise unknown_keyword(name)
        if value is None:
            continue
        if option.kind == "flag":
            if not isinstance(value, bool):
                raise ValueError(f"argument {option.flag}: is True or False, not {value!r}")
            argv += [option.flag] if value else []
        elif option.kind == "optional" and value is True:
            argv.append(option.flag)  # the option alone: its const
        elif option.kind == "optional" and value is False:
            continue
        elif option.kind == "append":
            values = [value] if isinstance(value, (str, os.PathLike)) else value
            if not isinstance(values, (list, tuple)):
                raise ValueError(f"argument {option.flag}: takes a value or a list of them")
            argv += [f"{option.flag}={_value(option, v)}" for v in values]
        else:
            argv.append(f"{option.flag}={_value(option, value)}")
    return argv


def parse(argv: list[str]) -> argparse.Namespace:
    """`tcprof run`'s arguments parsed by the CLI's parser (ValueError: its message)."""
    return run_parser().parse_args(argv)


def signature(base: inspect.Signature) -> inspect.Signature:
    """`base` (tcprof.run's own parameters) with every option of `tcprof run` as a keyword,
    its default and its type, so help() and a notebook's completion show them all."""
    params = [p for p in base.parameters.values() if p.kind != p.VAR_KEYWORD]
    taken = {p.name for p in params}
    for option in run_options().values():
        if option.keyword in taken:
            continue
        annotation: Any = (
            bool
            if option.kind == "flag"
            else str | list[str] | None
            if option.kind == "append"
            else (option.type or str) | None
            if option.default is None
            else option.type or str
        )
        params.append(
            inspect.Parameter(
                option.keyword,
                inspect.Parameter.KEYWORD_ONLY,
                default=option.default,
                annotation=annotation,
            )
        )
    return base.replace(parameters=params)


def options_help() -> str:
    """One line per option: keyword, default, the CLI's help (for tcprof.run's docstring)."""
    lines = []
    for option in run_options().values():
        text = " ".join((option.help or "").replace("%(default)g", str(option.default)).split())
        lines.append(f"    {option.keyword} = {option.default!r}: {text}")
    return "\n".join(lines)
