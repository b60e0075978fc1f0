"""`tcprof.run`'s keyword options, made from a run's options as declared once
(recording/declared.py, from which `tcprof run`'s parser is made too): each option is a keyword
with the same name (underscored) and the same default, and a call's values are converted and
checked by the same declared Option as the parser's `type=` (no command line in between), so a
bad one raises ValueError with the CLI's one line ("argument --steps: invalid int value:
'many'"); config_from_options then makes the RunConfig as it does for the CLI, whose bounds
("--steps must be at least 1") are the same Limits.

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
from typing import Any, NoReturn, cast

from tcprof.profiler.config import ConfigError
from tcprof.profiler.recording.declared import RUN_OPTIONS, Option, keywords
from tcprof.profiler.recording.options import Options, add_run_parser


class _RaisingParser(argparse.ArgumentParser):
    """The CLI's parser, but an error is a ValueError with argparse's one line."""

    def error(self, message: str) -> NoReturn:
        raise ValueError(message)


def run_parser() -> argparse.ArgumentParser:
    """`tcprof run`'s parser, as the CLI builds it (its errors raise ValueError): for the
    %tcprof magic, whose line is a command line."""
    parser = _RaisingParser(prog="tcprof")
    sub = cast("argparse._SubParsersAction[argparse.ArgumentParser]", parser.add_subparsers())
    return add_run_parser(sub)


def parse(argv: list[str]) -> Options:
    """`tcprof run`'s arguments parsed by the CLI's parser, by name (ValueError: its message)."""
    return vars(run_parser().parse_args(argv))


@functools.cache
def run_options() -> Mapping[str, Option]:
    """Every option of `tcprof run` but the model file, by keyword, in the CLI's order."""
    return {option.keyword: option for option in keywords()}


def unknown_keyword(name: str) -> TypeError:
    close = difflib.get_close_matches(name, list(run_options()), n=1)
    hint = f" (did you mean {close[0]!r}?)" if close else ""
    return TypeError(f"run() got an unexpected keyword argument {name!r}{hint}")


def checked(values: Mapping[str, object], model_file: str | None = None) -> dict[str, Any]:
    """Every option of a run by name (as the CLI's parser names it): the keyword's value
    converted and checked (ConfigError: the CLI's line), else the option's default."""
    out: dict[str, Any] = {option.dest: option.default for option in RUN_OPTIONS}
    out["model_file"] = model_file
    known = run_options()
    for name, value in values.items():
        option = known.get(name)
        if option is None:
            raise unknown_keyword(name)
        try:
            out[option.dest] = _keyword_value(option, value)
        except ConfigError as exc:
            raise ConfigError(f"argument {option.flag}: {exc}") from None
    return out


def _keyword_value(option: Option, value: object) -> Any:
    """A keyword's value as the parser would hold it (None: the default; True for an option
    that may stand alone: its const; a number for a text option: its text)."""
    if value is None:
        return option.default
    if option.kind == "flag":
        if not isinstance(value, bool):
            raise ConfigError(f"is True or False, not {value!r}")
        return value
    if option.kind == "optional" and isinstance(value, bool):
        return option.const if value else option.default
    if option.kind == "append":
        values = [value] if isinstance(value, (str, os.PathLike)) else value
        if not isinstance(values, (list, tuple)):
            raise ConfigError("takes a value or a list of them")
        return [option.convert(_text(option, v)) for v in values]
    return option.convert(_text(option, value))


def _text(option: Option, value: object) -> object:
    """A number given for a text option as its text, as a command line would give it."""
    if option.type is str and isinstance(value, (int, float)) and not isinstance(value, bool):
        return str(value)
    return value


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
            else option.type | None
            if option.default is None
            else option.type
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
