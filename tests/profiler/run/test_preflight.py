"""The recorded run's check before any arm runs (profiler/run/preflight.py): what is known wrong
refuses the run with one usage error, for the CLI, the Python API and the window alike."""

from __future__ import annotations

import dataclasses

import pytest

import tcprof
from tcprof.profiler.config import ArmSpec, ConfigError, ModelSource, RunConfig, examples
from tcprof.profiler.run.recorded import REFUSED, RecordedRun
from tests.support.cli import fast_config


def _simple(**overrides: object) -> RunConfig:
    path, _doc = examples.list_examples()["simple"]
    return RunConfig(source=ModelSource(str(path)), accuracy=False, **fast_config(**overrides))


def test_a_model_file_gone_since_it_was_chosen_refuses_the_run(tmp_path):
    """The window's saved settings or the API may name a file that is no longer there."""
    gone = tmp_path / "gone.py"
    config = dataclasses.replace(_simple(arms=(ArmSpec("eager"),)), source=ModelSource(str(gone)))
    events: list[dict] = []
    recorded = RecordedRun(config, tmp_path / "out", listeners=[events.append])
    session = recorded.run()
    assert recorded.refusal == f"model file not found: {gone}"
    assert session.status == REFUSED
    assert [e["type"] for e in events] == ["run_start", "error", "run_end"]
    assert events[1]["kind"] == "usage" and events[1]["message"] == recorded.refusal
    assert recorded.save().folder is None and not (tmp_path / "out").exists()


def test_a_test_runner_stand_in_is_not_checked(tmp_path):
    """Scripted runners run nothing real: the check is the engine runner's."""

    class Canned:
        def __init__(self, config: RunConfig, listeners: list) -> None:
            from tcprof.profiler.session.fold import SessionFold

            self.session = SessionFold()

        def run(self):
            return self.session

        def cancel(self) -> None:
            pass

    config = dataclasses.replace(_simple(), source=ModelSource(str(tmp_path / "gone.py")))
    recorded = RecordedRun(config, tmp_path / "out", runner_factory=Canned)
    recorded.run()
    assert recorded.refusal is None
    recorded.release()


def test_the_python_api_raises_the_same_line_before_any_arm_runs(tmp_path):
    heard: list[dict] = []
    with pytest.raises(ConfigError, match="did you mean 'inductor'"):
        tcprof.run(
            example="simple",
            arms="eager; inducter",
            out=str(tmp_path / "out"),
            replicates=1,
            steps=4,
            warmup=1,
            no_accuracy=True,
            progress=heard.append,
            quiet=True,
        )
    assert [p.kind for p in heard] == ["run_start", "error", "run_end"]
    assert not (tmp_path / "out").exists()


def test_a_backend_the_model_file_registers_itself_is_left_to_its_arm(tmp_path, monkeypatch):
    """torch knows a backend the model file registers only once that file runs: a name the
    file's source holds is not refused before the run; one it does not hold is."""
    from tcprof.profiler.run import preflight

    monkeypatch.setattr(
        preflight, "probe_environment", lambda *a, **k: {"backends": ["inductor", "eager"]}
    )
    model = tmp_path / "model.py"
    model.write_text('register_backend(name="mine_TESTING_ONLY")(lambda gm, ex: gm)\n')
    config = RunConfig(
        source=ModelSource(str(model)),
        arms=(ArmSpec("eager"), ArmSpec("mine_TESTING_ONLY")),
        **fast_config(),
    )
    assert preflight.check_before_run(config) is None
    config = dataclasses.replace(config, arms=(ArmSpec("eager"), ArmSpec("inducter")))
    assert "did you mean 'inductor'" in (preflight.check_before_run(config) or "")
