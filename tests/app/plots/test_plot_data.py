"""What the plots draw from, without Qt: each step's wall-clock time, the breaks between blocks,
a section's points, the smoothing's average, the y range's percentiles and the decimated
points' x."""

from __future__ import annotations

import numpy as np
import pytest

from tcprof.app.plots.decimation import sample, visible_peaks
from tcprof.app.plots.live_data import LiveData
from tcprof.app.plots.smoothing import Smoothed, ema
from tcprof.app.plots.y_range import clipped, robust_range

pytestmark = pytest.mark.timeout(60)


def _steps(arm, bs, start, ms, **extra):
    return {"type": "steps", "arm": arm, "batch_size": bs, "start": start, "ms": ms, **extra}


def test_each_step_ends_where_the_steps_after_it_began():
    data = LiveData(["eager", "inductor"], [8], warmup=0, steps=200)
    data.apply(_steps(0, 8, 1, [500.0, 250.0, 250.0], t=10.0))  # small: buffered in lists
    data.apply(_steps(1, 8, 1, np.array([500.0, 250.0, 250.0]), t=10.0))  # numpy at once
    for trace in data.arms:
        assert list(trace.step_ms.times()) == [9.5, 10.0 - 0.25, 10.0]
    data.apply(_steps(0, 8, 4, [2000.0], t=10.5))  # relayed late: it cannot end before 10.0
    assert data.arms[0].step_ms.times()[-1] == 10.5 and data.has_times
    assert np.all(np.diff(data.arms[0].step_ms.times()) >= 0)
    data.apply({"type": "memory", "arm": 0, "batch_size": 8, "step": 4, "rss_mb": 5.0, "t": 11.0})
    assert list(data.arms[0].rss_mb.times()) == [11.0] and data.t_extent == 11.0


def test_a_skipped_step_breaks_the_line_and_sections_keep_their_points():
    data = LiveData(["eager"], [8, 16], warmup=1, steps=4)
    data.apply(_steps(0, 8, 1, [1.0]))  # warm-up
    data.apply(_steps(0, 8, 3, [2.0, 2.0]))  # after the discarded step 2
    data.apply(_steps(0, 16, 1, [3.0]))
    series = data.arms[0].step_ms
    x, y = series.data()
    assert list(x) == [1.0, 2.5, 3.0, 4.0, 6.5, 7.0] and np.isnan(y[[1, 4]]).all()
    assert series.section_range((0, 8)) == (0, 5) and series.section_range((0, 16)) == (5, 6)
    assert data.section_start((0, 16)) == 6.0 and data.section_width((0, 8)) == 6.0
    assert data.current_section == (0, 16)


def test_phases_say_which_arm_waits_and_since_when():
    now = [5.0]
    data = LiveData(["eager", "inductor"], [8], warmup=0, steps=3, clock=lambda: now[0])
    data.apply({"type": "phase", "arm": 1, "phase": "compiling", "batch_size": 8, "t": 2.0})
    now[0] = 9.0
    (wait,) = data.waits()
    assert (wait.arm, wait.text, wait.elapsed_s, wait.t0) == (1, "compiling inductor · bs 8", 4, 2)
    assert data.run_time() == 6.0
    data.apply({"type": "phase", "arm": 1, "phase": "accuracy", "replicate": "accuracy"})
    assert data.waits(), "the untimed accuracy pass is not the timed worker"
    data.apply(_steps(1, 8, 1, [1.0]))
    assert data.waits() == []


def test_ema_matches_the_recurrence_and_restarts_after_a_break():
    rng = np.random.default_rng(0)
    x = rng.uniform(0.05, 30.0, 5000)
    for w in (0.0, 0.3, 0.9, 0.99):
        expected, c = [], x[0]
        for v in x:
            c = w * c + (1 - w) * v
            expected.append(c)
        assert np.allclose(ema(x, w, x[0]), expected, rtol=1e-12)
    y = x.copy()
    y[[100, 2000]] = np.nan
    whole = Smoothed().values(y, 0.9)
    grown = Smoothed()
    for n in (1, 99, 100, 101, 1999, 2001, 5000):
        part = grown.values(y[:n], 0.9)
    assert np.allclose(part, whole, equal_nan=True), "growing gives what one pass gives"
    assert np.isnan(whole[[100, 2000]]).all() and whole[101] == y[101], "restarted at a break"
    assert not np.allclose(Smoothed().values(y, 0.5), whole, equal_nan=True)


def test_the_range_fits_the_steps_not_a_spike():
    y = np.full(50, 0.058)
    y[7] = 30.0
    low, high = robust_range([(y, y)])
    assert low < 0.058 < high < 0.07
    x, v, above = clipped(np.arange(50.0), y, low, high)
    assert list(x) == [7.0] and list(v) == [30.0] and list(above) == [True]
    log_low, log_high = robust_range([(y, y)], log=True)
    assert log_low < np.log10(0.058) < log_high < np.log10(0.07)
    assert robust_range([(np.array([np.nan]), y)]) is None
    # Gaussian noise is not an outlier: the range holds all of it.
    noise = 1.0 + 0.1 * np.random.default_rng(0).standard_normal(100_000)
    low, high = robust_range([(sample(noise), noise)])
    assert low <= noise.min() and high >= noise.max()
    # Two arms far apart: each keeps its own fences, and a spike of either is left out.
    fast, slow = np.full(100, 0.1), np.full(100, 0.2)
    fast[3] = slow[5] = 30.0
    low, high = robust_range([(fast, fast), (slow, slow)])
    assert low < 0.1 and 0.2 < high < 0.25


def test_the_sample_spans_the_data_and_is_the_same_every_time():
    y = np.arange(1_000_000, dtype=float)
    s = sample(y, 2048)
    assert len(s) == 2048 and np.array_equal(s, sample(y, 2048))
    assert s.min() < 1_000 and s.max() > 999_000
    spikes = np.zeros(100_000)
    spikes[::100] = 1.0  # a spike every 100 steps: neither always nor never picked
    assert 0.002 < sample(spikes).mean() < 0.05


def test_decimated_points_keep_their_own_x_on_a_time_axis():
    t = np.cumsum(np.r_[np.full(5000, 0.001), np.full(5000, 1.0)])  # two paces
    xs, ys = visible_peaks(t, np.ones_like(t), 0, t[-1], max_points=100)
    assert np.all(np.isin(xs, t)), "every x is a point's own time"


def test_clipped_points_thin_to_the_furthest_of_each_band_and_count_the_rest():
    from tcprof.app.plots.y_range import thinned, top_room_for

    x = np.array([0.0, 0.4, 0.9, 1.2, 3.5, 3.6])
    y = np.array([10.0, 30.0, -5.0, 12.0, 11.0, -9.0])
    above = y > 0
    tx, ty, up, count = thinned(x, y, above, band=1.0)
    assert list(zip(tx, ty, up, count, strict=True)) == [
        (0.4, 30.0, True, 2),
        (0.9, -5.0, False, 1),
        (1.2, 12.0, True, 1),
        (3.5, 11.0, True, 1),
        (3.6, -9.0, False, 1),
    ]
    assert thinned(x, y, above, band=0.0)[3].tolist() == [1] * 6
    # 40 px free at the top of a 200 px view: the data's top sits 40 px down
    room = top_room_for(40, 200)
    steps = np.linspace(1.0, 2.0, 101)
    lo, hi = robust_range([(steps, steps)], top_room=room)
    assert (hi - 2.0) / (hi - lo) == pytest.approx(0.2)
