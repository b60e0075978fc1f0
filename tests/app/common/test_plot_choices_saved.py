"""The plots' saved choices, read once at the QSettings edge into `PlotChoices`: a value of
another type is taken as never chosen, and only the choices made are written."""

from __future__ import annotations

import json

import pytest

from tcprof.app.common.settings import PlotChoices, Preferences, qsettings

pytestmark = pytest.mark.timeout(30)


def test_values_of_another_type_are_never_chosen():
    raw = {"x_axis": 3, "smoothing": True, "log_y": "yes", "middle_script": "loss", "new": 1}
    assert PlotChoices.of(raw) == PlotChoices(middle_script="loss")
    assert PlotChoices.of([1]) == PlotChoices()
    assert PlotChoices.of({"smoothing": 0, "log_y": False}) == PlotChoices(smoothing=0, log_y=False)


def test_only_the_choices_made_are_written():
    prefs = Preferences()
    prefs.set_plot_choices(PlotChoices(x_axis="wall", smoothing=0.5))
    assert json.loads(qsettings().value("plot_choices")) == {"x_axis": "wall", "smoothing": 0.5}
    assert prefs.plot_choices() == PlotChoices(x_axis="wall", smoothing=0.5)
