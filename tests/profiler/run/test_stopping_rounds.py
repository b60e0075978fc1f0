"""A run with no --replicates stops when its answer is settled, only where the arms' order is
balanced and after at least 3 rounds; the budget and the last look stop it; an explicit
--replicates keeps its fixed rounds. Scripted fake workers (tests/support/fake_worker.py)."""

from __future__ import annotations

from typing import Any

import pytest

from tcprof.profiler.analysis import stopping
from tcprof.profiler.config import ArmSpec, ModelSource, RunConfig
from tcprof.profiler.model.session import SessionModel
from tcprof.profiler.model.stopping import Stopping
from tcprof.profiler.run.runner import Runner
from tests.support.fake_worker import ArmScript, FakeWorkers

pytestmark = pytest.mark.timeout(60)

EAGER, AOT = ArmSpec("eager"), ArmSpec("aot_eager")
NOISY = (1.0, 1.3, 0.8, 1.2, 0.9, 1.25, 0.85, 1.1)  # rounds that never settle at ±3%


def _config(**overrides: Any) -> RunConfig:
    fields: dict[str, Any] = {
        "source": ModelSource("model.py"),
        "arms": (EAGER, AOT),
        "batch_sizes": (8,),
        "warmup": 1,
        "steps": 4,
        "blocks": 2,
        "replicates": 8,
        "stop_early": True,
        "min_block_ms": 0,
        "threads": 1,
        "accuracy": False,
        "timeout_s": 20,
    }
    fields.update(overrides)
    return RunConfig(**fields)


def _run(config: RunConfig, fakes: FakeWorkers, **options: Any) -> dict[str, Any]:
    session = Runner(config, worker_factory=fakes, **options).run()
    return session.to_dict()


def _rounds(data: dict[str, Any]) -> int:
    return len(data["rounds"])


def test_a_settled_answer_stops_at_the_first_balanced_point_of_3_rounds_or_more():
    fakes = FakeWorkers({0: ArmScript(step_ms=10.0), 1: ArmScript(step_ms=4.0)})
    data = _run(_config(), fakes)
    assert data["status"] == "completed"
    assert _rounds(data) == 4, "2 arms balance after 2 rounds; 3 at least: 4"
    stop = data["stopping"]
    assert stop["reason"] == stopping.SETTLED and stop["rounds"] == 4
    assert stop["looks"] == [4, 8] and 0.96 < stop["level"] < 0.975
    assert stopping.stop_text(Stopping.of(stop)).startswith("settled after 4 rounds")


def test_three_arms_stop_at_six_rounds():
    fakes = FakeWorkers({0: ArmScript(step_ms=10.0), 1: ArmScript(4.0), 2: ArmScript(5.0)})
    data = _run(_config(arms=(EAGER, AOT, ArmSpec("inductor")), replicates=12), fakes)
    assert _rounds(data) == 6 and data["stopping"]["reason"] == stopping.SETTLED


def test_a_noisy_run_goes_to_its_last_look():
    fakes = FakeWorkers({0: ArmScript(step_ms=10.0), 1: ArmScript(9.0, round_factors=NOISY)})
    data = _run(_config(), fakes)
    assert _rounds(data) == 8 and data["stopping"]["reason"] == stopping.MAX_ROUNDS
    row = next(r for r in data["arms"][1]["results"])
    low, high = row["speedup_ci"]
    assert high / low > 1.06, "the interval reported is the adjusted one, and wide"


def test_the_budget_stops_it_at_a_balanced_point():
    clock = iter(float(i) for i in range(100_000))  # every reading a second later
    fakes = FakeWorkers({0: ArmScript(step_ms=10.0), 1: ArmScript(9.0, round_factors=NOISY)})
    config = _config(budget_s=1.0, timeout_s=None, stall_timeout_s=None)
    data = _run(config, fakes, clock=lambda: next(clock))
    assert _rounds(data) == 4
    assert data["stopping"]["reason"] == stopping.BUDGET
    assert "budget" in stopping.stop_text(SessionModel.from_json(data).stopping)


def test_an_explicit_replicates_keeps_its_fixed_rounds():
    fakes = FakeWorkers({0: ArmScript(step_ms=10.0), 1: ArmScript(step_ms=4.0)})
    data = _run(_config(stop_early=False, replicates=6), fakes)
    assert _rounds(data) == 6 and data.get("stopping") is None
    row = next(r for r in data["arms"][1]["results"])
    assert row["replicates"] == 6


def test_the_stop_reason_is_one_line_in_the_terminal_and_both_reports():
    from tcprof.profiler.cli.summary import render_summary
    from tcprof.profiler.report.html import render_html
    from tcprof.profiler.report.markdown import render_markdown

    fakes = FakeWorkers({0: ArmScript(step_ms=10.0), 1: ArmScript(step_ms=4.0)})
    data = _run(_config(), fakes)
    line = stopping.stop_text(SessionModel.from_json(data).stopping)
    assert line and line.startswith("settled after 4 rounds (97.0% intervals")
    assert f"rounds: {line}" in render_summary(SessionModel.read(data))
    assert f"Rounds: {line}." in render_markdown(SessionModel.read(data))
    assert f"Rounds: {line}." in render_html(SessionModel.read(data))
    assert "paired t 97.0% interval" in render_summary(SessionModel.read(data))


def test_progress_counts_to_the_first_look_then_on_to_the_last():
    from tcprof.profiler.run.progress_model import ProgressModel

    model = ProgressModel(["eager", "aot_eager"], _config())
    assert model.rounds == 4
    first_total = model.total
    model.apply({"type": "round_start", "replicate": 4})
    assert model.rounds == 8 and model.total == 2 * first_total
    assert model.where().startswith("round 5/8")


def test_the_options_make_a_run_that_stops_when_settled_unless_replicates_is_given():
    from tcprof.profiler.api import options as api_options
    from tcprof.profiler.config import ConfigError
    from tcprof.profiler.recording.options import config_from_options

    def made(**keywords: Any) -> RunConfig:
        return config_from_options(api_options.checked({"example": "simple", **keywords}))

    auto = made(budget=60.0, precision=0.05)
    assert auto.stop_early and auto.replicates == 6, "2 arms: looks after 4 and 6 rounds"
    assert (auto.budget_s, auto.precision) == (60.0, 0.05)
    fixed = made(replicates=6)
    assert not fixed.stop_early and fixed.replicates == 6 and fixed.budget_s is None
    with pytest.raises(ConfigError, match="give one or the other"):
        made(replicates=6, budget=60.0)
