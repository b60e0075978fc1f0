"""The plots as a W&B user reads them: a y range that ignores spikes (and marks them), smoothing,
a legend that hides arms, a log step-time axis, a wheel that zooms x only, an x axis where the
same x means the same thing for every arm (a batch size's steps, or wall-clock time with the
compiles as spans), section labels that never overlap, the compile wait on the plot, and compile
markers that say what share of the compile cost they are. Widget tests on synthetic events."""

from __future__ import annotations

import numpy as np
import pytest
from PySide6.QtCore import QEvent, QPoint, QPointF, Qt
from PySide6.QtGui import QMouseEvent, QWheelEvent
from PySide6.QtWidgets import QApplication

from tcprof.app.plots.live_data import LiveData

SECTION, WALL, ROW = "section", "wall", "row"  # x_axis.MODES (test_modes_are_the_axis_modes)

pytestmark = pytest.mark.timeout(60)


@pytest.fixture
def plots(qtbot):
    from tcprof.app.plots.live_plots import LivePlots

    widget = LivePlots()
    qtbot.addWidget(widget)
    widget.resize(1000, 520)
    widget.show()
    qtbot.waitExposed(widget)
    yield widget
    widget.clear()


def _steps(arm, bs, start, ms, **extra):
    return {"type": "steps", "arm": arm, "batch_size": bs, "start": start, "ms": list(ms), **extra}


def _started(plots, data: LiveData) -> LiveData:
    plots.start(data)
    plots.timer.stop()  # redraws are driven here
    return data


def _spiky_run(plots) -> LiveData:
    """Two arms at 0.058 and 0.060 ms a step, arm 0 with one 30 ms step."""
    data = _started(plots, LiveData(["eager", "inductor"], [8], warmup=0, steps=200))
    ms = np.full(200, 0.058)
    ms[120] = 30.0
    data.apply(_steps(0, 8, 1, ms.tolist()))
    data.apply(_steps(1, 8, 1, [0.060] * 200))
    plots.refresh()
    QApplication.processEvents()  # pyqtgraph's own auto-range, had it one, has run
    return data


def _tip(scatter, point) -> str:
    """What hovering a point of a scatter shows."""
    return scatter.opts["tip"](point.pos().x(), point.pos().y(), point.data())


def _move_mouse(view, point: QPoint) -> None:
    event = QMouseEvent(
        QEvent.Type.MouseMove,
        QPointF(point),
        QPointF(view.viewport().mapToGlobal(point)),
        Qt.MouseButton.NoButton,
        Qt.MouseButton.NoButton,
        Qt.KeyboardModifier.NoModifier,
    )
    QApplication.sendEvent(view.viewport(), event)


def _at(plots, plot_index: int, x: float, y: float) -> QPoint:
    """The viewport point of (x, y) in a plot's data units."""
    vb = plots.plots[plot_index].vb
    return plots.view.mapFromScene(vb.mapViewToScene(QPointF(x, y)))


def _wheel(view, point: QPoint, steps: int) -> None:
    event = QWheelEvent(
        QPointF(point),
        QPointF(view.viewport().mapToGlobal(point)),
        QPoint(0, 0),
        QPoint(0, 120 * steps),
        Qt.MouseButton.NoButton,
        Qt.KeyboardModifier.NoModifier,
        Qt.ScrollPhase.NoScrollPhase,
        False,
    )
    QApplication.sendEvent(view.viewport(), event)


def test_modes_are_the_axis_modes():
    from tcprof.app.plots import x_axis

    assert (x_axis.SECTION, x_axis.WALL, x_axis.ROW) == (SECTION, WALL, ROW)


def test_the_step_time_range_ignores_a_spike_and_marks_it(plots):
    _spiky_run(plots)
    low, high = plots.plots[0].vb.viewRange()[1]
    assert high < 1.0, f"a 30 ms spike stretched the axis to {high:.2f} ms"
    assert low < 0.058 < 0.060 < high, "the steps themselves are inside the range"
    (spike,) = plots.arm_items.clips[0][0].points()
    assert spike.pos().x() == 121 and (high + low) / 2 < spike.pos().y() <= high, "at the top"
    tip = _tip(plots.arm_items.clips[0][0], spike)
    assert tip == "eager: 30.00 ms at step 121 (beyond the plot's top)", tip
    assert plots.arm_items.clips[1][0].points().size == 0, "nothing of the other arm is clipped"
    # The throughput dip of the same step is marked at the throughput plot's bottom.
    (dip,) = plots.arm_items.clips[0][1].points()
    assert dip.pos().x() == 121 and "beyond the plot's bottom" in _tip(
        plots.arm_items.clips[0][1], dip
    )


def test_the_range_leaves_out_spikes_of_a_long_run_zoomed_out(plots):
    """A million noisy steps, one in 1,000 a spike: decimated to ~2,000 points every column
    holds a spike, and the range still fits the steps (the spikes are marked, at most
    y_range.MAX_CLIPPED of them)."""
    data = _started(plots, LiveData(["eager"], [8], warmup=0, steps=1_000_000))
    rng = np.random.default_rng(0)
    ms = 0.058 + 0.002 * rng.standard_normal(1_000_000)
    ms[::1000] = 30.0
    data.apply(_steps(0, 8, 1, ms))
    plots.refresh()
    low, high = plots.plots[0].vb.viewRange()[1]
    assert low < 0.058 < high < 0.1
    assert 0 < len(plots.arm_items.clips[0][0].points()) <= 200


def test_smoothing_draws_an_average_over_the_faint_raw_curve(plots):
    data = _started(plots, LiveData(["eager"], [8], warmup=0, steps=20_000))
    rng = np.random.default_rng(0)
    data.apply(_steps(0, 8, 1, np.abs(1.0 + 0.2 * rng.standard_normal(20_000))))
    plots.refresh()
    assert plots.arm_items.smooth[0]["step_ms"].getData()[1] is None, "off by default"
    plots.controls.smoothing.setValue(0.9)
    assert plots.smoothing == 0.9
    raw = plots.arm_items.curves[0]["step_ms"]
    sx, sy = plots.arm_items.smooth[0]["step_ms"].getData()
    rx, ry = raw.getData()
    assert len(sx) <= 2100 and len(sx) == len(rx), "decimated like the raw curve"
    assert np.nanstd(sy) < 0.5 * np.nanstd(ry)
    assert raw.opts["pen"].color().alpha() < 255, "the raw curve stays, faint"
    assert plots.arm_items.smooth[0]["step_ms"].zValue() > raw.zValue()
    plots.controls.smoothing.setValue(0.0)
    assert plots.arm_items.smooth[0]["step_ms"].getData()[1] is None
    assert raw.opts["pen"].color().alpha() == 255


def test_clicking_a_legend_entry_hides_that_arm_in_every_plot(plots, qtbot):
    data = _spiky_run(plots)
    data.apply({"type": "compile", "arm": 1, "batch_size": 8, "step": 0, "seconds": 1.0})
    data.apply({"type": "memory", "arm": 1, "batch_size": 8, "step": 5, "rss_mb": 100.0})
    plots.refresh()
    entry = plots.legend.buttons[1]
    qtbot.mouseClick(entry, Qt.MouseButton.LeftButton)
    assert 1 in plots.hidden
    items = [
        *plots.arm_items.curves[1].values(),
        *plots.arm_items.smooth[1].values(),
        plots.arm_items.markers[1],
    ]
    assert items and not any(item.isVisible() for item in items)
    assert all(item.isVisible() for item in plots.arm_items.curves[0].values())
    assert entry.font().strikeOut() and not plots.legend.buttons[0].font().strikeOut()
    plots.refresh()
    assert "inductor" not in plots.crosshair.readout(0, 10.0)[0][0]
    qtbot.mouseClick(entry, Qt.MouseButton.LeftButton)
    assert 1 not in plots.hidden and plots.arm_items.curves[1]["step_ms"].isVisible()
    assert plots.arm_items.markers[1].isVisible() and not entry.font().strikeOut()


def test_the_log_toggle_puts_step_time_on_a_log_axis(plots, qtbot):
    _spiky_run(plots)
    assert plots.controls.log_y.isVisible()
    assert not plots.plots[0].getAxis("left").logMode
    qtbot.mouseClick(plots.controls.log_y, Qt.MouseButton.LeftButton)
    assert plots.log_y and plots.plots[0].getAxis("left").logMode
    assert not plots.plots[1].getAxis("left").logMode, "only the step-time axis"
    low, high = plots.plots[0].vb.viewRange()[1]  # decades now
    assert low < np.log10(0.058) < np.log10(0.060) < high < np.log10(1.0)
    labels = [
        s
        for _spacing, values in plots.plots[0].getAxis("left").tickValues(low, high, 200)
        for s in plots.plots[0].getAxis("left").tickStrings(values, 1.0, 1.0)
    ]
    assert labels and all("·" not in s and "⁻" not in s for s in labels), labels
    qtbot.mouseClick(plots.controls.log_y, Qt.MouseButton.LeftButton)
    assert not plots.plots[0].getAxis("left").logMode


def test_the_wheel_zooms_x_only_and_panning_stays_within_the_data(plots, qtbot):
    _spiky_run(plots)
    vb = plots.plots[0].vb
    (x0, x1), y_before = vb.viewRange()
    _wheel(plots.view, _at(plots, 0, 100, sum(y_before) / 2), 3)
    (z0, z1), y_after = vb.viewRange()
    assert z1 - z0 < 0.9 * (x1 - x0), "the wheel zoomed in"
    assert y_after == y_before, "the wheel left y alone"
    assert plots.plots[2].vb.viewRange()[0] == [z0, z1], "every plot shares the x range"
    for _ in range(10):  # zooming out goes no further than the data
        _wheel(plots.view, _at(plots, 0, 100, sum(y_before) / 2), -5)
    w0, w1 = vb.viewRange()[0]
    assert w0 >= -10 and w1 <= 215, (w0, w1)
    vb.translateBy(x=10_000)  # a pan far past the end stops at it
    assert vb.viewRange()[0][1] <= 215 and vb.viewRange()[1] == y_before
    plots.controls.fit.click()
    assert plots.plots[0].vb.viewRange()[0][1] >= 200


def test_step_in_batch_size_starts_every_arms_section_at_zero(plots):
    data = _started(plots, LiveData(["eager", "inductor"], [32, 64], warmup=1, steps=4))
    assert plots.axis.mode == SECTION, "the default: the same x is the same step for every arm"
    data.apply(_steps(0, 32, 1, [1.0] * 7400))  # eager ran a longer block than inductor
    data.apply(_steps(1, 32, 1, [2.0] * 3200))
    data.apply(_steps(0, 64, 1, [1.5] * 5))
    data.apply(_steps(1, 64, 1, [2.5] * 5))
    plots.refresh()
    for arm in (0, 1):  # the section running (bs=64): both arms from its step 1
        x, y = plots.arm_items.curves[arm]["step_ms"].getData()
        assert x[0] == 1 and list(x) == [1, 2, 3, 4, 5], x
    assert plots.plots[0].vb.viewRange()[0][1] < 20, "the bs=64 section only"
    plots.controls.section.setCurrentIndex(plots.controls.section.findText("bs=32"))
    assert plots.axis.chosen == (0, 32)
    for arm, n in ((0, 7400), (1, 3200)):
        x, y = plots.arm_items.curves[arm]["step_ms"].getData()
        assert x[0] == 1 and x[np.isfinite(y)][-1] == n, "each arm's bs=32 steps from 1 on"
    assert [label.toPlainText() for label in plots.guides.labels] == ["warm-up", "measured"]
    # The row layout is still there: bs=64 starts after the longest bs=32.
    plots.controls.x_axis.setCurrentIndex(plots.controls.x_axis.findData(ROW))
    x, _y = plots.arm_items.curves[1]["step_ms"].getData()
    assert x[0] == 1 and x[-1] > 7400


def _timed_run(plots) -> LiveData:
    """inductor's first compile takes 20 s of torch's timer, then both arms take steps; events
    carry the engine's t (seconds since the run began)."""
    data = _started(plots, LiveData(["eager", "inductor"], [8], warmup=0, steps=10))
    plots.set_x_axis(WALL)
    data.apply({"type": "phase", "arm": 0, "phase": "first_step", "batch_size": 8, "t": 1.0})
    data.apply({"type": "first_step", "arm": 0, "batch_size": 8, "ms": 100.0, "t": 1.1})
    data.apply({"type": "phase", "arm": 1, "phase": "compiling", "batch_size": 8, "t": 1.2})
    compile_event = {"type": "compile", "arm": 1, "batch_size": 8, "step": 0, "kind": "first"}
    data.apply(
        {**compile_event, "compile_id": "0/0", "frame": "forward", "seconds": 20.0, "t": 22.0}
    )
    data.apply({"type": "first_step", "arm": 1, "batch_size": 8, "ms": 20500.0, "t": 22.0})
    data.apply(_steps(0, 8, 1, [500.0, 500.0], t=23.0))  # ended at 22.5 and 23.0
    data.apply(_steps(1, 8, 1, [250.0, 250.0], t=24.0))
    plots.refresh()
    return data


def test_wall_clock_time_draws_each_compile_as_a_span_of_its_seconds(plots):
    _timed_run(plots)
    assert plots.plots[-1].getAxis("bottom").labelText.startswith("time since the run began")
    x, _y = plots.arm_items.curves[0]["step_ms"].getData()
    assert list(x) == [22.5, 23.0], "each step at the time it ended"
    (span,) = plots.arm_items.spans[1]
    start, end = span.getRegion()
    assert (start, end) == (2.0, 22.0) and end - start == 20.0, "as long as the compile"
    assert span.isVisible() and "20.00 s" in span.toolTip()
    (marker,) = plots.arm_items.markers[1].points()
    assert marker.pos().x() == 2.0
    assert plots.arm_items.spans[0] == [], "eager did not compile"
    plots.set_x_axis(SECTION)  # spans are for the time axis
    assert plots.arm_items.spans[1] == []


def test_compiles_sent_together_are_laid_end_to_end(plots):
    data = _started(plots, LiveData(["inductor"], [8], warmup=0, steps=10, eager=[False]))
    plots.set_x_axis(WALL)
    base = {"type": "compile", "arm": 0, "batch_size": 8, "step": 0, "compile_id": "x"}
    data.apply({**base, "seconds": 3.0, "t": 10.0})
    data.apply({**base, "seconds": 2.0, "t": 10.01})  # after the same step: it ran second
    plots.refresh()
    regions = sorted(span.getRegion() for span in plots.arm_items.spans[0])
    assert regions == [(5.0, 8.0), (8.0, 10.0)]


def _rects_disjoint(items) -> bool:
    rects = [item.sceneBoundingRect() for item in items]
    return all(not a.intersects(b) for i, a in enumerate(rects) for b in rects[i + 1 :])


def test_section_labels_never_overlap_at_any_zoom(plots):
    sizes = list(range(1, 13))
    data = _started(plots, LiveData(["eager"], sizes, warmup=0, steps=3, replicates=2))
    plots.set_x_axis(ROW)
    for rep in (0, 1):
        for bs in sizes:
            data.apply(_steps(0, bs, 1, [1.0, 1.0, 1.0], replicate=rep))
    plots.refresh()
    assert len(plots.guides.labels) == 24 and "r1 bs=16" not in [
        t.toPlainText() for t in plots.guides.labels
    ]
    for x0, x1 in ((0, 110), (0, 40), (20, 30), (0, 8)):
        plots.plots[0].setXRange(x0, x1, padding=0)
        shown = [label for label in plots.guides.labels if label.isVisible()]
        assert shown, (x0, x1)
        assert _rects_disjoint(shown), f"labels overlap at x {x0}..{x1}"
    assert len(shown) >= 1
    plots.plots[0].setXRange(0, 110, padding=0)
    assert sum(label.isVisible() for label in plots.guides.labels) < 24, "some are left out"


def test_the_compile_wait_shows_its_time_and_survives_a_hover(plots, qtbot):
    now = [100.0]
    data = LiveData(["eager", "inductor"], [16], warmup=0, steps=10, clock=lambda: now[0])
    _started(plots, data)
    data.apply(_steps(0, 16, 1, [1.0, 1.2, 1.1], t=3.0))
    data.apply({"type": "phase", "arm": 1, "phase": "compiling", "batch_size": 16, "t": 4.0})
    now[0] += 12.0
    plots.refresh()
    text = plots.wait.text
    qtbot.waitUntil(lambda: text.isVisible() and "12 s" in text.toPlainText(), timeout=5000)
    assert text.toPlainText() == "compiling inductor · bs 16… 12 s"
    assert text.parentItem() is plots.plots[0].vb, "on the step-time plot"
    # Hovering shows the crosshair's readout, and leaves the wait line where it is.
    vb = plots.plots[0].vb
    _move_mouse(plots.view, _at(plots, 0, 2, sum(vb.viewRange()[1]) / 2))
    readout = plots.crosshair.texts[0]
    assert plots.crosshair.step == 2 and readout.isVisible()
    assert text.isVisible() and text.toPlainText().startswith("compiling inductor")
    assert not readout.sceneBoundingRect().intersects(text.sceneBoundingRect())
    now[0] += 3.0
    qtbot.waitUntil(lambda: "15 s" in text.toPlainText(), timeout=5000)
    assert readout.isVisible()
    # On the time axis a span grows from the compile's start to now.
    plots.set_x_axis(WALL)
    span = plots.arm_items.wait_spans[1]
    assert span.isVisible() and span.getRegion()[0] == 4.0
    assert span.getRegion()[1] == pytest.approx(4.0 + 15.0), "the run's time now"
    data.apply({"type": "first_step", "arm": 1, "batch_size": 16, "ms": 15000.0, "t": 19.0})
    qtbot.waitUntil(lambda: not text.isVisible(), timeout=5000)
    assert not span.isVisible()


def test_a_compile_marker_says_its_duration_and_its_share_of_the_compile_cost(plots):
    data = _started(plots, LiveData(["eager", "inductor"], [64], warmup=0, steps=10))
    data.apply(
        {
            "type": "compile",
            "arm": 1,
            "batch_size": 64,
            "step": 0,
            "kind": "first",
            "compile_id": "0/0",
            "frame": "forward",
            "seconds": 1.5,
        }
    )
    data.apply(_steps(1, 64, 1, [1.0, 1.0]))
    plots.refresh()
    (point,) = plots.arm_items.markers[1].points()
    assert "torch's compile timer: 1.50 s" in point.data(), "live: the cost is not known yet"
    assert "compile cost" not in point.data()
    summary = {
        "arms": [
            {"name": "eager", "results": [{"batch_size": 64, "compile_s": 0.0}]},
            {"name": "inductor", "results": [{"batch_size": 64, "compile_cold_s": 6.0}]},
        ]
    }
    data.apply({"type": "summary", "session": summary})  # as a saved session gives it
    plots.refresh()
    (point,) = plots.arm_items.markers[1].points()
    assert "torch's compile timer: 1.50 s, 25% of bs 64's compile cost (6.00 s)" in point.data()


def test_the_plots_choices_survive_a_restart(qtbot):
    from tcprof.app.common.settings import qsettings
    from tcprof.app.plots.live_plots import LivePlots

    first = LivePlots()
    qtbot.addWidget(first)
    assert (first.x_mode(), first.smoothing, first.log_y) == (SECTION, 0.0, False)
    first.controls.x_axis.setCurrentIndex(first.controls.x_axis.findData(WALL))
    first.controls.smoothing.setValue(0.6)
    first.controls.log_y.setChecked(True)
    again = LivePlots()  # the next start of the window
    qtbot.addWidget(again)
    assert (again.x_mode(), again.smoothing, again.log_y) == (WALL, 0.6, True)
    assert again.controls.mode() == WALL and again.controls.log_y.isChecked()
    # what a later version does not know is ignored, not an error
    qsettings().setValue("plot_choices", '{"x_axis": "gone", "smoothing": 7, "log_y": "yes"}')
    third = LivePlots()
    qtbot.addWidget(third)
    assert (third.x_mode(), third.smoothing, third.log_y) == (SECTION, 0.0, False)


def test_the_phase_labels_sit_above_the_steps_and_spikes_share_one_marker_a_band(plots):
    """A noisy run with a spike every 10th of 2,000 steps: the 'measured' label lies above every
    drawn step inside the range (the range leaves the label rows free), and the spikes beyond
    the top are one marker per marker's width, the tooltip saying how many it stands for."""
    data = _started(plots, LiveData(["eager"], [8], warmup=5, steps=2000))
    rng = np.random.default_rng(1)
    data.apply(_steps(0, 8, 1, 1.0 + 0.05 * rng.standard_normal(5), phase="warmup"))
    ms = 1.0 + 0.05 * rng.standard_normal(2000)
    ms[::10] = 30.0
    data.apply(_steps(0, 8, 6, ms))
    plots.refresh()
    QApplication.processEvents()
    vb = plots.plots[0].vb
    low, high = vb.viewRange()[1]
    assert high < 5, "the spikes are left out of the range"
    (measured,) = [t for t in plots.guides.labels if t.toPlainText() == "measured"]
    assert measured.isVisible()
    label_bottom = measured.mapRectToScene(measured.boundingRect()).bottom()
    x, y = plots.arm_items.curves[0]["step_ms"].getData()
    inside = np.isfinite(y) & (y <= high)
    highest = vb.mapViewToScene(QPointF(float(x[inside][0]), float(y[inside].max()))).y()
    assert highest > label_bottom, "no step drawn under the label rows"
    markers = plots.arm_items.clips[0][0].points()
    from tcprof.app.plots.arm_items import CLIP_SIZE

    assert 0 < len(markers) <= vb.width() / CLIP_SIZE + 2, len(markers)
    xs = sorted(p.pos().x() for p in markers)
    spacing = min(b - a for a, b in zip(xs, xs[1:], strict=False))
    assert spacing * vb.width() / (vb.viewRange()[0][1] - vb.viewRange()[0][0]) >= CLIP_SIZE / 2
    assert sum(p.data()[1] for p in markers) == 200, "every spike counted once"
    crowded = max(markers, key=lambda p: p.data()[1])
    assert "points beyond here" in _tip(plots.arm_items.clips[0][0], crowded)
