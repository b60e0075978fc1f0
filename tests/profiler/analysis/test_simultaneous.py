"""Simultaneous intervals: the interval every view shows is the one the verdict, its colour and
the payback use, over many simulated families; they cover their truths together at the stated
family-wise level, not far above it; with one comparison nothing changes."""

from __future__ import annotations

import math

import numpy as np
import pytest

from tcprof.profiler.analysis import stats
from tcprof.profiler.analysis.verdict import (
    BAD,
    GOOD,
    NEUTRAL,
    session_notes,
    session_verdicts,
    speedup_interval,
    speedup_tone,
)
from tcprof.profiler.model.row import Row
from tcprof.profiler.model.session import SessionModel
from tcprof.profiler.report.sections.cells import fmt_break_even, fmt_verdict
from tests.support.simulated_family import family_session, random_family
from tests.support.typed import row_of

pytestmark = pytest.mark.timeout(60)


def test_one_comparison_is_the_plain_95_interval():
    assert stats.simultaneous_level(1) == pytest.approx(0.95)
    assert stats.simultaneous_level(3) == pytest.approx(1 - 0.05 / 3)
    rng = np.random.default_rng(0)
    d = family_session(random_family(rng, arms=2, rounds=4))
    row = d["arms"][1]["results"][0]
    assert row["interval_level"] == pytest.approx(0.95)
    assert row["speedup_ci_simultaneous"] == pytest.approx(row["speedup_ci"])
    assert session_notes(SessionModel.read(d))[:1] != [
        "simultaneous"
    ]  # one comparison: no family to state
    assert not any("simultaneous" in n for n in session_notes(SessionModel.read(d)))


def test_at_level_keeps_the_centre_and_widens_by_t():
    base = [[[10.0]], [[11.0]], [[9.5]], [[10.2]]]
    arm = [[[8.0]], [[9.1]], [[7.4]], [[8.3]]]
    plain = stats.speedup_interval(base, arm)
    assert plain is not None and plain.se_log is not None
    wide = stats.at_level(plain, 1 - 0.05 / 3)
    half = math.log(wide.high / wide.speedup)
    assert wide.speedup == plain.speedup
    assert half == pytest.approx(stats.t_quantile(3, 1 - 0.05 / 3) * plain.se_log)
    assert wide.low < plain.low and wide.high > plain.high


def _rows(d):
    return [(a, r) for a in d["arms"][1:] for r in a["results"]]


def test_verdict_colour_interval_and_payback_never_disagree():
    """The property, over families of 1 to 5 comparisons, 2 to 6 rounds, true speedups at the
    edge of 95% and of the family-wise level: faster exactly when the interval shown is above
    1, slower exactly when below, the colour with them, a payback only where faster, and no
    '(not after Holm)' note: the interval and the adjustment are one."""
    rng = np.random.default_rng(7)
    seen = {"faster": 0, "slower": 0, "no_difference": 0, "95_only": 0}
    for _ in range(70):
        arms, rounds = int(rng.integers(2, 5)), int(rng.integers(2, 7))
        sizes = int(rng.integers(1, 3))
        d = family_session(random_family(rng, arms, rounds, sizes), batch_sizes=(8, 16)[:sizes])
        m = (arms - 1) * sizes
        assert d["comparisons"]["count"] == m
        tones = {v.arm: v.tone for v in session_verdicts(SessionModel.read(d))}
        for arm, row in _rows(d):
            low, high = speedup_interval(row)
            assert row["interval_level"] == pytest.approx(1 - 0.05 / m)
            assert [low, high] == row["speedup_ci_simultaneous"]
            verdict = row["verdict"]
            seen[verdict] += 1
            plain = row["speedup_ci"]
            seen["95_only"] += (plain[0] > 1 or plain[1] < 1) and low <= 1 <= high
            assert (verdict == "faster") == (low > 1.0)
            assert (verdict == "slower") == (high < 1.0)
            assert speedup_tone(Row.of(arm["name"], row, False)) == {
                "faster": GOOD,
                "slower": BAD,
            }.get(verdict, NEUTRAL)
            assert "not after" not in fmt_verdict(row_of(row))
            assert row["holds_after_adjustment"] == (verdict != "no_difference")
            if verdict != "faster":
                assert row["break_even_cold_steps"] is None and row["break_even_cold_ci"] is None
                assert fmt_break_even(row_of(row), False) in (
                    "within noise",
                    "never",
                    "never / never",
                )
            if verdict == "faster" and tones[arm["name"]] != BAD:
                assert tones[arm["name"]] == GOOD
    assert all(seen.values()), f"the families reach every case: {seen}"


def _family_coverage(rng, m, rounds, draws, noise=0.03, shared=0.5):
    """Family-wise coverage of the simultaneous intervals stats makes: every one of the m
    comparisons (each against the same baseline, so they are correlated) covers its truth."""
    level = stats.simultaneous_level(m)
    truth = np.exp(rng.normal(0, 0.1, size=m))
    covered = 0
    for _ in range(draws):
        shift = rng.normal(0, 0.05, size=rounds)
        base = 10.0 * np.exp(shift + rng.normal(0, noise * shared, size=rounds))
        ok = True
        for j in range(m):
            arm = 10.0 * np.exp(shift + rng.normal(0, noise, size=rounds)) / truth[j]
            found = stats.speedup_interval([[[b]] for b in base], [[[a]] for a in arm])
            assert found is not None
            joint = stats.at_level(found, level)
            ok = ok and joint.low <= truth[j] <= joint.high
        covered += ok
    return covered / draws


@pytest.mark.parametrize(("m", "rounds"), [(1, 4), (3, 4), (4, 6)])
def test_family_wise_coverage_is_95_and_not_far_above(m, rounds):
    """1,500 simulated runs per setting: coverage within 2.5 standard errors of a range that
    a calibrated method keeps (95% for one comparison; 95-98% for three or more)."""
    rng = np.random.default_rng(100 + m)
    draws = 1500
    coverage = _family_coverage(rng, m, rounds, draws)
    slack = 2.5 * math.sqrt(0.95 * 0.05 / draws)
    assert coverage >= 0.95 - slack
    assert coverage <= (0.95 if m == 1 else 0.98) + slack
