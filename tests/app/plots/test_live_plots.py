"""Live plots: what is drawn, and that redraws stay cheap (one plot per tick, only on change)."""

from __future__ import annotations

import time

import numpy as np
import pytest
from PySide6.QtWidgets import QGraphicsItem

from tcprof.app.plots.live_data import LiveData


@pytest.fixture
def plots(qtbot):
    from tcprof.app.plots.live_plots import LivePlots

    widget = LivePlots()
    qtbot.addWidget(widget)
    widget.resize(1200, 600)
    widget.show()
    qtbot.waitExposed(widget)
    yield widget
    widget.clear()


def _steps(arm, bs, start, ms):
    return {"type": "steps", "arm": arm, "batch_size": bs, "start": start, "ms": list(ms)}


def _data() -> LiveData:
    return LiveData(["eager", "inductor"], [32, 64], warmup=0, steps=1000)


def test_small_steps_events_are_buffered_and_read_in_order():
    data = _data()
    trace = data.arms[0]
    version = trace.step_ms.version
    for start in range(1, 11):
        data.apply(_steps(0, 32, start, [float(start)]))
    assert trace.step_ms.version > version  # readers see the change before the numpy fold
    data.apply(_steps(0, 32, 11, np.full(100, 2.0)))  # a big event folds the small ones first
    data.apply(_steps(0, 32, 111, [4.0]))
    x, y = trace.step_ms.data()
    assert list(x) == list(range(1, 112)) and np.all(np.diff(x) > 0)
    assert list(y[:10]) == [float(i) for i in range(1, 11)] and y[-1] == 4.0
    assert trace.throughput.data()[1][-1] == 32 * 1000.0 / 4.0
    assert trace.step_ms.n == trace.throughput.n == 111 and data.points == 111


def test_zero_ms_steps_give_zero_throughput():
    data = _data()
    data.apply(_steps(1, 64, 1, [0.0, 2.0]))
    assert list(data.arms[1].throughput.data()[1]) == [0.0, 32_000.0]


def test_plots_keep_their_features_and_cheap_settings(plots):
    from tcprof.app.plots.x_axis import ROW

    data = _data()
    plots.start(data)
    plots.set_x_axis(ROW)  # every section in a row: both sections' lines and labels show
    assert len(plots.plots) == 3
    assert plots.guides.lines == [], "a section's line appears when the section begins"
    for plot in plots.plots:
        assert plot.getAxis("left").cacheMode() == QGraphicsItem.CacheMode.DeviceCoordinateCache
        assert plot.getAxis("left").style["maxTickLevel"] == 0
    data.apply(
        {
            "type": "compile",
            "arm": 1,
            "batch_size": 64,
            "step": 0,
            "kind": "recompile",
            "reason": "size mismatch",
            "seconds": 1.5,
        }
    )
    data.apply(_steps(0, 32, 1, [1.0, 2.0]))
    assert plots.refresh()
    points = plots.arm_items.markers[1].points()
    assert len(points) == 1 and "size mismatch" in points[0].data()
    x, y = plots.arm_items.curves[0]["step_ms"].getData()
    assert list(y) == [1.0, 2.0]
    assert not plots.refresh()  # nothing changed: nothing redrawn
    # Batch-size phases: one line per section in each plot, labelled in the first.
    lines = [item for _plot, item in plots.guides.lines]
    assert len(lines) == 3 * len(data.batch_sizes)
    labels = [label.toPlainText() for label in plots.guides.labels]
    assert labels == ["bs=64", "bs=32"], "sections in the order they began"
    assert all(
        label.cacheMode() == QGraphicsItem.CacheMode.DeviceCoordinateCache
        for label in plots.guides.labels
    )


def test_sections_follow_rounds_and_make_room_for_longer_blocks():
    data = LiveData(["eager", "inductor"], [32, 64], warmup=1, steps=4, replicates=2)
    span = data.span  # 6: first step, one warm-up, four measured
    assert data.x_extent() == span * 2 * 2 and data.sections() == []
    data.apply({**_steps(0, 32, 2, [1.0] * 20), "replicate": 0})  # a block ran 20 steps
    data.apply({**_steps(1, 32, 2, [1.0] * 4), "replicate": 0})
    data.apply({**_steps(0, 64, 2, [1.0] * 4), "replicate": 0})
    data.apply({**_steps(0, 32, 2, [1.0] * 4), "replicate": 1})
    data.apply({**_steps(1, 32, 0, [1.0]), "replicate": "accuracy"})  # not plotted
    assert data.sections() == [(0.0, "r1 bs=32"), (22.0, "r1 bs=64"), (28.0, "r2 bs=32")]
    assert data.boundaries() == [(0.0, 32), (22.0, 64), (28.0, 32)]
    x, y = data.arms[0].step_ms.data()
    assert x[0] == 2 and x[19] == 21 and x[21] == 24 and x[-1] == 33
    assert np.isnan(y[20]) and x[20] == 23.5, "the line breaks between sections"
    assert np.isnan(y).sum() == 2 and np.all(np.diff(x) > 0)
    assert data.points == 32 and data.x_extent() == 34 > span * 4, "the data went further"


def test_a_tick_redraws_one_changed_plot_round_robin(plots, qtbot):
    data = _data()
    plots.start(data)
    plots.timer.stop()  # ticks are driven here
    for arm in range(2):
        data.apply(_steps(arm, 32, 1, np.linspace(1, 2, 500)))
        data.apply({"type": "memory", "arm": arm, "batch_size": 32, "step": 1, "rss_mb": 300.0})
    drawn = []
    for _ in range(3):
        before = {k: v.getData()[0] for k, v in plots.arm_items.curves[0].items()}
        plots.pacer.last_tick = plots.pacer.last_cost = 0.0  # no pacing in this test
        plots._tick()
        after = {k: v.getData()[0] for k, v in plots.arm_items.curves[0].items()}
        drawn.append({k for k in after if (before[k] is None) != (after[k] is None)})
    assert drawn == [{"step_ms"}, {"throughput"}, {"rss_mb"}]
    plots.pacer.last_tick = plots.pacer.last_cost = 0.0
    ticks = plots.ticks
    plots._tick()  # nothing new: no redraw
    assert plots.ticks == ticks
    data.apply({"type": "memory", "arm": 0, "batch_size": 32, "step": 50, "rss_mb": 301.0})
    plots.pacer.last_tick = plots.pacer.last_cost = 0.0
    plots._tick()  # only the memory plot changed: it is the one redrawn, whatever the turn
    assert plots.ticks == ticks + 1 and plots.arm_items.curves[0]["rss_mb"].getData()[0][-1] == 50.0


def test_an_expensive_redraw_delays_the_next_tick(plots):
    data = _data()
    plots.start(data)
    plots.timer.stop()
    data.apply(_steps(0, 32, 1, [1.0]))
    plots.pacer.last_tick = time.perf_counter()
    plots.pacer.last_cost = 10.0  # as if the last redraw took 10 s
    skipped = plots.skipped_ticks
    plots._tick()
    assert (
        plots.skipped_ticks == skipped + 1
        and plots.arm_items.curves[0]["step_ms"].getData()[0] is None
    )


def test_the_timer_keeps_plots_live_during_a_run(plots, qtbot):
    data = _data()
    plots.start(data)
    data.apply(_steps(0, 32, 1, [1.0, 1.5, 2.0]))
    qtbot.waitUntil(
        lambda: plots.arm_items.curves[0]["throughput"].getData()[0] is not None, timeout=5000
    )
    plots.stop()
    assert not plots.timer.isActive()


def test_arms_added_mid_run_get_their_own_curves_and_log_filter(plots, qtbot):
    from tcprof.app.results.log_panel import LogPanel

    data = _data()
    plots.start(data)
    plots.timer.stop()
    added = {"type": "arms_added", "arms": [{"backend": "inductor", "label": "inductor + fix"}]}
    logs = LogPanel()
    qtbot.addWidget(logs)
    logs.start(["eager", "inductor"])
    for event in (added, _steps(2, 32, 1, [1.0, 2.0])):
        data.apply(event)
        logs.add_events([event])
    for _ in range(3):
        plots.pacer.last_tick = plots.pacer.last_cost = 0.0
        plots._tick()
    assert [t.name for t in data.arms] == ["eager", "inductor", "inductor + fix"]
    x, y = plots.arm_items.curves[2]["step_ms"].getData()
    assert list(y) == [1.0, 2.0]
    assert logs.filter.itemText(logs.filter.count() - 1) == "inductor + fix"
    assert "applying advice: running inductor + fix" in logs.text.toPlainText()
