"""Break-even's interval (analysis/break_even.py): Fieller's over the compile cost's rounds and
each paired round's saving per step, checked against truths known by construction."""

import numpy as np
import pytest

from bench.break_even_coverage import TRUTH, coverage
from tcprof.profiler.analysis.break_even import break_even
from tests.support.typed import row_of


def test_the_interval_widens_when_the_baselines_rounds_vary_more():
    """The speedup is exactly 2 in every round; only the baseline's round-to-round spread
    differs, and with it the saving per step: the interval must widen with it."""
    quiet = [4.0, 4.1, 3.9]
    loud = [4.0, 4.8, 3.2]
    narrow = break_even([10.0], quiet, [b / 2 for b in quiet])
    wide = break_even([10.0], loud, [b / 2 for b in loud])
    assert narrow.steps == pytest.approx(wide.steps) == pytest.approx(10_000 / 2.0)
    assert wide.low < narrow.low and wide.high > narrow.high


def test_the_compile_rounds_spread_widens_it_and_one_round_adds_none():
    base, arm = [4.0, 4.2, 3.8], [2.0, 2.1, 1.9]
    one = break_even([10.0], base, arm)
    three = break_even([9.0, 10.0, 11.0], base, arm)
    assert three.steps == pytest.approx(one.steps) and three.cost_rounds == 3
    assert three.high - three.low > one.high - one.low
    exact = break_even([10.0], [4.0, 4.0], [2.0, 2.0])
    assert exact.low == exact.high == exact.steps == pytest.approx(5_000.0), "no noise: no width"


def test_no_saving_no_payback():
    assert break_even([10.0], [4.0, 4.0], [4.5, 4.4]).steps is None, "slower: never"
    assert break_even([10.0], [4.0, 4.0, 4.0], [3.0, 4.5, 3.9]).high is None, "may never"
    assert break_even([], [4.0, 4.0], [2.0, 2.0]) is None, "no cost measured"
    assert break_even([10.0], [4.0], [2.0]) is None, "one round: no spread to measure"


@pytest.mark.parametrize("kwargs", [{}, {"rounds": 3}, {"compile_sd": 0.2}])
def test_simulated_coverage_of_a_known_break_even(kwargs):
    """bench/break_even_coverage.py's simulation, short: 2000 trials there gave 94-95%."""
    assert np.isfinite(TRUTH)
    cov, held, _ = coverage(200, seed=1, **kwargs)
    assert held >= 150 and 0.89 <= cov <= 0.995


def test_no_payback_figure_where_the_speedups_interval_contains_one():
    """A session whose arm is within noise of eager: no break-even figure in the row, and the
    table, the verdict and the API read 'within noise' / none."""
    from tcprof.profiler.model.compiles import CompileCost
    from tcprof.profiler.model.session import SessionModel
    from tcprof.profiler.model.verdict import payback
    from tcprof.profiler.report.sections.cells import fmt_break_even
    from tests.support.synthetic import synthetic_session

    eager = [[2.0, 2.0, 2.0, 2.0], [2.2, 2.2, 2.2, 2.2], [1.9, 1.9, 1.9, 1.9]]
    same = [[1.9, 1.9, 1.9, 1.9], [2.1, 2.1, 2.1, 2.1], [1.95, 1.95, 1.95, 1.95]]
    doc = synthetic_session(first_step_ms=(50.0, 1250.0), rounds={0: eager, 1: same})
    row = doc["arms"][1]["results"][0]
    assert row["speedup_ci"][0] < 1.0 < row["speedup_ci"][1] and row["speedup"] > 1.0
    assert row["verdict"] == "no_difference" and row["compile_cold_s"] > 0
    for key in ("break_even_steps", "break_even_cold_steps", "break_even_cold_ci"):
        assert row[key] is None, key
    assert fmt_break_even(row_of(row), is_baseline=False) == "within noise"
    compiled = SessionModel.from_json(doc).arms[1].rows[0]
    assert "within noise" in (payback(compiled) or "")
    assert CompileCost.of(row).break_even_steps is None
