"""A script row's figures are read once, as `Row.script` (model/script.py): its work per step
and per second and its start-up live there, checked against what the session's writer
(session/script_rows.py) saves for each unit."""

from __future__ import annotations

import dataclasses
from types import SimpleNamespace

import pytest

from tcprof.profiler.model.script import ScriptFigures
from tcprof.profiler.model.session import SessionModel
from tcprof.profiler.session.script_rows import work_figures
from tests.support.script_sessions import script_session

pytestmark = pytest.mark.timeout(30)


@pytest.mark.parametrize("unit", ["samples", "tokens", "steps", None])
def test_the_work_per_step_is_the_one_the_writer_saved(unit: str | None) -> None:
    res = SimpleNamespace(samples=[8, 8, 9], tokens=[2048, 2048, 2304])
    saved = work_figures(res, 4.0, unit)  # type: ignore[arg-type]
    figures = ScriptFigures.of(saved)
    assert figures is not None and figures.unit == saved["unit"]
    assert figures.work_per_step == saved["work_per_step"]
    assert figures.work_per_s == saved["work_per_s"]
    assert figures.samples_per_step == saved["samples_per_step"] == 8.0


def test_a_row_holds_its_script_figures_once() -> None:
    row = SessionModel.from_json(script_session()).row("eager", 8)
    fields = {f.name for f in dataclasses.fields(row)}
    assert not fields & {"work_per_s", "work_per_step", "samples_per_step", "startup_s"}
    assert row.script is not None and row.script.work_per_step == 2048
    assert row.startup_s == row.script.startup_s == 1.25  # the API's name, derived
    model_file = SessionModel.from_json({"arms": [{"name": "e", "results": [{"batch_size": 1}]}]})
    assert model_file.rows[0].script is None and model_file.rows[0].startup_s is None
