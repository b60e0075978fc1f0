"""--log-to's specs: each form, each mistake as one line, and a missing library named with
what installs it."""

from __future__ import annotations

import subprocess
import sys

import pytest

from tcprof.profiler.trackers import TrackerSpec, missing_library, parse_spec, parse_specs

pytestmark = pytest.mark.timeout(30)


def test_the_forms(monkeypatch):
    monkeypatch.setenv("MLFLOW_TRACKING_URI", "http://127.0.0.1:5000")
    assert parse_spec("tensorboard") == TrackerSpec("tensorboard", None)
    assert parse_spec("tensorboard:/tmp/tb") == TrackerSpec("tensorboard", "/tmp/tb")
    assert parse_spec(" TensorBoard:runs ") == TrackerSpec("tensorboard", "runs")
    assert parse_spec("mlflow:http://host:5000") == TrackerSpec("mlflow", "http://host:5000")
    assert parse_spec("mlflow:sqlite:///x.db") == TrackerSpec("mlflow", "sqlite:///x.db")
    # mlflow alone: the tracking URI from the environment, read when parsed
    assert parse_spec("mlflow") == TrackerSpec("mlflow", "http://127.0.0.1:5000")
    assert str(parse_spec("tensorboard:/tmp/tb")) == "tensorboard:/tmp/tb"
    # wandb alone: W&B's own WANDB_PROJECT and WANDB_ENTITY, read when the session is logged
    assert parse_spec("wandb") == TrackerSpec("wandb", None)
    assert parse_spec("wandb:nightly") == TrackerSpec("wandb", "nightly")
    assert parse_spec("wandb:team/nightly") == TrackerSpec("wandb", "team/nightly")


def test_each_tracker_and_target_once():
    specs = parse_specs(["tensorboard:a", "tensorboard:b", "tensorboard:a"])
    assert [s.target for s in specs] == ["a", "b"]
    with pytest.raises(TypeError):
        parse_specs("tensorboard")  # type: ignore[arg-type]  # one string, not a list


@pytest.mark.parametrize(
    ("text", "says"),
    [
        (
            "neptune",
            "unknown tracker 'neptune'; give tensorboard[:DIR], mlflow[:URI] or "
            "wandb[:[ENTITY/]PROJECT]",
        ),
        ("", "unknown tracker ''"),
        ("tensorboard:", "a folder after tensorboard:, or tensorboard alone"),
        ("mlflow: ", "a tracking URI after mlflow:, or mlflow alone"),
        ("wandb:", "a project after wandb:, or wandb alone"),
        ("wandb:a/b/c", "give wandb:PROJECT or wandb:ENTITY/PROJECT"),
        ("wandb:team/", "give wandb:PROJECT or wandb:ENTITY/PROJECT"),
        ("wandb:my#project", "a W&B project cannot hold #"),
    ],
)
def test_a_bad_spec_is_one_line(text, says):
    with pytest.raises(ValueError) as caught:
        parse_spec(text)
    assert says in str(caught.value)
    assert "\n" not in str(caught.value)


def test_mlflow_without_a_uri_says_how_to_give_one(monkeypatch):
    monkeypatch.delenv("MLFLOW_TRACKING_URI", raising=False)
    with pytest.raises(ValueError, match="mlflow:URI, or set MLFLOW_TRACKING_URI"):
        parse_spec("mlflow")


@pytest.mark.parametrize("kind", ["tensorboard", "mlflow", "wandb"])
def test_a_missing_library_names_its_extra(monkeypatch, kind):
    assert missing_library(kind) is None  # make test installs the three extras
    monkeypatch.setitem(sys.modules, kind, None)  # as if it were not installed
    line = f"--log-to {kind} needs the {kind} package: pip install tcprof[{kind}]"
    assert missing_library(kind) == line
    with pytest.raises(ValueError) as caught:
        parse_spec(f"{kind}:somewhere")
    assert str(caught.value) == line


def test_wandb_is_imported_only_when_a_session_is_logged_to_it():
    """Parsing `--log-to wandb` and reading how a session is logged load no W&B (its import
    takes seconds)."""
    probe = (
        "import sys; from tcprof.profiler.trackers import parse_spec; "
        "import tcprof.profiler.trackers.log; parse_spec('wandb:p'); "
        "print(sorted(m for m in sys.modules if m.split('.')[0] == 'wandb'))"
    )
    out = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, check=True, timeout=60
    )
    assert out.stdout.strip() == "[]"
