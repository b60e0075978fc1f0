"""The saved setup, typed once at the raw edge: its cells are RunConfig's fields in RunConfig's
types, a value of another type is not taken but quoted, and the panel restores through it."""

from __future__ import annotations

import dataclasses

import pytest

from tcprof.app.setup.saved_setup import RUN_FIELDS, SavedSetup
from tcprof.profiler.config import DebugOptions

pytestmark = pytest.mark.timeout(30)


def test_each_cell_is_a_run_config_field_in_its_declared_type():
    own = {"model_file_trusted"}  # the panel's own key, saved with a script
    for field in dataclasses.fields(SavedSetup):
        if field.name in own:
            continue
        assert field.name in RUN_FIELDS, field.name
        declared = str(RUN_FIELDS[field.name].type).split(" | ")[0]
        held = str(field.type).removeprefix("Saved[").removesuffix("]")
        # the Batch sizes field keeps what the user typed: text, not the parsed tuple; the
        # script, what the Script box shows (a session's ScriptSource shown in its fields)
        typed = {"batch_sizes": "str", "script": "ScriptFields"}
        assert held == typed.get(field.name, declared), field.name


def test_a_value_of_another_type_is_not_taken_but_quoted():
    saved = SavedSetup.of({"nproc": "x", "lr": True, "warmup": 3.5, "threads": None})
    assert (saved.nproc.given, saved.nproc.value, saved.nproc.quoted) == (True, None, "x")
    assert saved.lr.value is None and saved.lr.number is None  # a bool is no number
    assert saved.warmup.value is None and saved.warmup.number == 3.5  # named as not fitting
    assert saved.threads.null and saved.threads.fits  # threads: int | None
    assert not saved.steps.given and saved.steps.read(50) == 50
    assert saved.nproc.read(1) is None


def test_nested_values_are_parsed_at_the_edge():
    saved = SavedSetup.of(
        {
            "source": {"path": "m.py", "model": "Net"},
            "arms": [{"backend": "eager"}, {"backend": "inductor"}],
            "debug": {"logs": ["graph_breaks"]},
            "batch_sizes": [8, 16],
            "control": False,
        }
    )
    assert saved.source.value is not None and saved.source.value.model == "Net"
    assert saved.arms.value is not None
    assert [a.backend for a in saved.arms.value] == ["eager", "inductor"]
    assert saved.debug.value == DebugOptions(logs=("graph_breaks",))
    assert saved.batch_sizes.value == "8, 16"
    assert saved.control.fits and saved.control.value == ""  # no control
    bad = SavedSetup.of({"source": {"path": 3}, "arms": "eager", "control": "nope"})
    assert not bad.source.fits and not bad.arms.fits and not bad.control.fits
    assert bad.control.quoted == "nope"


def test_the_panel_names_a_distributed_misfit_as_saved(make_window):
    window = make_window(background=False)
    window.setup.restore({"nproc": "many", "rdzv_timeout_s": -1, "lr": 1e-9})
    text = window.setup.carried.text()
    assert "nproc=many" in text and "rdzv_timeout_s=-1" in text and "lr=1e-09" in text


def test_a_script_is_read_in_either_form():
    session = SavedSetup.of(
        {
            "script": {"path": "/p/t.py", "python": "python", "args": ["--n", "{n}"], "sweep": "n"},
            "batch_sizes": [1, 2],
        }
    ).script.value
    assert session is not None and session.session
    assert (session.args, session.sweep) == ("--n {n}", "n=1,2")
    own = SavedSetup.of({"script": {"path": "/p/t.py", "args": "-v", "step_on": "odd"}})
    assert own.script.value is not None and not own.script.value.session
    assert own.script.value.step_on == "optimizer"  # a value it cannot take: the default
    assert SavedSetup.of({"script": {"args": []}}).script.value is None  # no path
