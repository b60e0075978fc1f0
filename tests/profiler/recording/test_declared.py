"""A run's options are declared once (recording/declared.py): every one reaches `tcprof run`'s
parser, tcprof.run's keywords and the RunConfig, and a value outside an option's declared bound
is refused by the CLI and the API with the same one line (the window: tests/app/setup/
test_bounds.py)."""

from __future__ import annotations

import inspect
from collections.abc import Iterator, Mapping
from typing import Any

import pytest

import tcprof
from tcprof.profiler.api import options as api_options
from tcprof.profiler.cli.main import build_parser, main
from tcprof.profiler.config import ConfigError, examples
from tcprof.profiler.recording.declared import RUN_OPTIONS, Option
from tcprof.profiler.recording.options import config_from_options

SIMPLE = str(examples.example_path("simple"))
BOUNDED = [o for o in RUN_OPTIONS if o.limit is not None]
# read by each door around the RunConfig (the folder, what is printed, the trackers)
DOORS_OWN = {"out", "force", "quiet", "json", "show_output", "log_to", "mlflow_experiment", "store"}


def refused(option: Option) -> float:
    """The nearest value below an option's bound: the first its check refuses."""
    assert option.limit is not None
    if option.limit.strict:
        return option.limit.low
    return option.limit.low - (1 if option.type is int else 0.5)


def test_every_declared_option_reaches_the_parser_and_the_api():
    run = build_parser()._subparsers._group_actions[0].choices["run"]
    parsed = {a.dest: a for a in run._actions if a.dest != "help"}
    assert list(parsed) == [o.dest for o in RUN_OPTIONS], "all of them, in order"
    for option in RUN_OPTIONS:
        action = parsed[option.dest]
        assert (action.default, action.help) == (option.default, option.help), option.flag
        assert action.choices == option.choices or option.kind == "flag"
    keywords = api_options.run_options()
    assert list(keywords) == [o.keyword for o in RUN_OPTIONS if o.kind != "positional"]
    assert keywords["model_name"].flag == "--model", "the one renamed option"
    params = inspect.signature(tcprof.run).parameters
    for option in keywords.values():
        assert params[option.keyword].default == option.default
        assert params[option.keyword].kind is inspect.Parameter.KEYWORD_ONLY


class _Reads(Mapping[str, Any]):
    """Options that remember which of them were read."""

    def __init__(self, values: dict[str, Any]) -> None:
        self.values, self.read = values, set()

    def __getitem__(self, key: str) -> Any:
        self.read.add(key)
        return self.values[key]

    def __iter__(self) -> Iterator[str]:
        return iter(self.values)

    def __len__(self) -> int:
        return len(self.values)


def test_every_declared_option_but_the_doors_own_makes_the_run_config():
    options = _Reads(api_options.checked({"example": "simple"}))
    config_from_options(options)
    unread = {o.dest for o in RUN_OPTIONS} - options.read - DOORS_OWN
    assert not unread


def test_the_keywords_hold_what_the_parser_holds_for_the_same_words():
    words = [SIMPLE, "--steps", "7", "--lr", "0.5", "--control", "--log-to", "tensorboard"]
    keywords = {"steps": 7, "lr": 0.5, "control": True, "log_to": "tensorboard"}
    assert api_options.checked(keywords, SIMPLE) == api_options.parse(words)


@pytest.mark.parametrize("option", BOUNDED, ids=lambda o: o.flag)
def test_a_value_outside_the_bound_is_the_same_line_at_the_cli_and_the_api(option, capsys):
    bad = refused(option)
    assert option.problem(bad) == option.limit.message
    assert option.problem(option.convert(str(bad + 2))) is None
    assert main(["run", SIMPLE, f"{option.flag}={bad}", "--quiet"]) == 2
    assert capsys.readouterr().err.strip().endswith(f"tcprof: error: {option.limit.message}")
    with pytest.raises(ConfigError) as caught:
        tcprof.run(SIMPLE, **{option.keyword: bad})
    assert str(caught.value) == option.limit.message


@pytest.mark.parametrize(
    ("keyword", "value", "line"),
    [
        ("steps", "many", "argument --steps: invalid int value: 'many'"),
        ("lr", "fast", "argument --lr: invalid float value: 'fast'"),
        ("device", "tpu", "argument --device: invalid choice: 'tpu'"),
        ("control", "twice", "argument --control: invalid choice: 'twice'"),
    ],
)
def test_a_bad_text_is_the_parsers_own_line_at_both_doors(keyword, value, line):
    flag = api_options.run_options()[keyword].flag
    with pytest.raises(ValueError) as by_parser:
        api_options.parse([SIMPLE, f"{flag}={value}"])
    with pytest.raises(ValueError) as by_keyword:
        api_options.checked({keyword: value})
    assert str(by_parser.value) == str(by_keyword.value)
    assert str(by_keyword.value).startswith(line)
