"""The tracker a session was last logged to is kept as a typed record (common/settings.py
`TrackerChoice`), read back tolerant of what an older or edited settings file holds."""

from __future__ import annotations

import json

import pytest

from tcprof.app.common.settings import Preferences, TrackerChoice, qsettings

pytestmark = pytest.mark.timeout(10)


def test_the_tracker_choice_comes_back_as_it_was_given() -> None:
    assert Preferences().tracker() == TrackerChoice(), "nothing chosen yet"
    choice = TrackerChoice(kind="mlflow", mlflow_uri="http://h:5000", mlflow_experiment="e")
    Preferences().set_tracker(choice)
    assert Preferences().tracker() == choice


def test_unknown_keys_and_values_that_are_not_text_are_left_out() -> None:
    raw = {"kind": "wandb", "wandb_project": 3, "future_key": "x", "tensorboard_dir": "/tb"}
    qsettings().setValue("tracker", json.dumps(raw))
    assert Preferences().tracker() == TrackerChoice(kind="wandb", tensorboard_dir="/tb")
    qsettings().setValue("tracker", json.dumps(["not", "a", "choice"]))
    assert Preferences().tracker() == TrackerChoice()
