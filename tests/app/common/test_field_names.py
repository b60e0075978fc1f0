"""The engine's messages name command-line flags; the window names its own fields instead."""

from __future__ import annotations

import ast
import re

import pytest

from tcprof.app.common.field_names import FLAG_FIELDS, FOREIGN_FLAGS, in_app_terms
from tcprof.app.window.error_banner import ErrorBanner, one_line
from tcprof.profiler.model.figures import Problem
from tests.support.paths import ROOT

FLAG = re.compile(r"(?<![\w-])--[a-z][a-z-]*[a-z]")


def _message_strings(tree: ast.AST) -> list[str]:
    """String pieces that can reach a user: not docstrings, not argparse's flag names or help,
    not argv elements (a lone flag, as passed to torchrun or tlparse)."""
    skip: set[int] = set()
    for node in ast.walk(tree):
        body = getattr(node, "body", None)
        if isinstance(body, list) and body and isinstance(body[0], ast.Expr):
            skip.add(id(body[0].value))  # a docstring
        if isinstance(node, ast.Call):
            for kw in node.keywords:
                if kw.arg == "help":
                    skip.update(id(n) for n in ast.walk(kw.value))
            if getattr(node.func, "attr", "") in ("add_argument", "add_parser"):
                skip.update(id(n) for a in node.args for n in ast.walk(a))
    return [
        node.value
        for node in ast.walk(tree)
        if isinstance(node, ast.Constant)
        and isinstance(node.value, str)
        and id(node) not in skip
        and " " in node.value.strip()
    ]


# Text for other programs: reproduce.py's comments quote torchrun's command line.
NOT_MESSAGES = ("report/reproduce.py",)


def engine_flags() -> set[str]:
    found = set()
    for path in (ROOT / "profiler").rglob("*.py"):
        text = path.read_text(encoding="utf-8")
        if path.as_posix().endswith(NOT_MESSAGES) or not FLAG.search(text):
            continue
        tree = ast.parse(text)
        for message in _message_strings(tree):
            found.update(FLAG.findall(message))
    return found


def test_every_flag_the_engines_messages_name_has_a_field():
    flags = engine_flags()
    assert {"--factory", "--input-shape", "--steps", "--amp"} <= flags  # the search finds them
    missing = flags - set(FLAG_FIELDS) - FOREIGN_FLAGS
    assert not missing, f"flags without a field name in app/common/field_names.py: {missing}"


@pytest.mark.parametrize("flag", sorted(FLAG_FIELDS))
def test_each_flag_reads_as_its_field(flag):
    text = in_app_terms(f"the run needs {flag} here")
    assert text == f"the run needs {FLAG_FIELDS[flag]} here"


def test_a_flags_value_stays_with_its_field_and_unknown_flags_stay():
    message = 'M() needs arguments (...); pass a factory expression, e.g. --factory "M(4)"'
    assert in_app_terms(message).endswith('e.g. "M(4)" in the Factory field')
    assert in_app_terms("cannot infer it; pass --input-shape") == (
        "cannot infer it; fill in the Input shape field"
    )
    assert in_app_terms("pass --no-such-flag") == "pass --no-such-flag"


def test_a_scripts_messages_read_in_the_windows_terms():
    """The words of a script's errors (profiler/worker/script/errors.py)."""
    assert in_app_terms(
        "no optimizer step in 120 s: is this a training script? `--step-on forward` for "
        "inference (or a longer --no-step-timeout)"
    ) == (
        "no optimizer step in 120 s: is this a training script? forward in the Step on field "
        "for inference (or a longer value in the No-step timeout field)"
    )
    assert in_app_terms("this run needs 8 (1 first + --warmup 1 + --steps 4 ...)") == (
        "this run needs 8 (1 first + 1 in the Warm-up field + 4 in the Steps field ...)"
    )
    assert in_app_terms("give --sweep n=1,2,4") == "give n=1,2,4 in the Sweep field"


def test_the_banner_names_fields_not_flags(qtbot):
    error = {
        "kind": "load",
        "message": 'M() needs arguments; pass a factory expression, e.g. --factory "M(...)"',
        "arm": 0,
    }
    assert "--factory" not in one_line(Problem.of(error), ["eager"])
    banner = ErrorBanner()
    qtbot.addWidget(banner)
    banner.add(error, ["eager"])
    assert banner.text() == (
        'eager: load error: M() needs arguments; pass a factory expression, e.g. "M(...)" in the '
        "Factory field"
    )
    assert "--factory" not in banner.details.toPlainText()


@pytest.mark.parametrize(
    ("how", "steps", "step_on"),
    [("no_step", 0, "optimizer"), ("returned", 0, "optimizer"), ("returned", 3, "optimizer")],
)
def test_a_scripts_errors_name_no_flag_in_the_banner(how, steps, step_on, tmp_path):
    """The worker's own words for a script that never steps or ends early
    (profiler/worker/script/errors.py), as the banner shows them."""
    from tcprof.profiler.worker.script.errors import script_error
    from tcprof.profiler.worker.script.run import ScriptEnd
    from tests.support.script_harness import script_config

    path = tmp_path / "train.py"
    path.write_text("")
    cfg = script_config(path, step_on=step_on)
    error = script_error(ScriptEnd(how), cfg, 1, steps, in_step=False, compiled=False)
    line = one_line(Problem.of({**error, "arm": 0}), ["eager"])
    assert line.startswith("eager") and not FLAG.search(line), line
    assert any(field in line for field in ("Step on field", "Steps field", "No-step timeout"))
