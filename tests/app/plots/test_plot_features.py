"""What the live plots show besides curves: the legend row, the crosshair readout, markers
that do not hide each other, a memory title that matches the device, the empty-state hint and a
distributed arm's rank band. Widget tests on synthetic events; no worker."""

from __future__ import annotations

import pytest
from PySide6.QtCore import QEvent, QPoint, QPointF, QRect, Qt
from PySide6.QtGui import QMouseEvent
from PySide6.QtWidgets import QApplication

from tcprof.app.plots.live_data import LiveData

ARMS = ["eager", "inductor", "aot_eager"]


@pytest.fixture
def plots(qtbot):
    from tcprof.app.plots.live_plots import LivePlots

    widget = LivePlots()
    qtbot.addWidget(widget)
    widget.resize(900, 420)
    widget.show()
    qtbot.waitExposed(widget)
    yield widget
    widget.clear()


def _run(plots, device: str | None = "cpu") -> LiveData:
    """Three arms, 20 steps each at batch size 8, arm i taking i + 1 + step/100 ms."""
    data = LiveData(ARMS, [8], warmup=0, steps=20, device=device)
    plots.start(data)
    plots.timer.stop()
    for arm in range(3):
        ms = [arm + 1 + step / 100 for step in range(20)]
        data.apply({"type": "steps", "arm": arm, "batch_size": 8, "start": 0, "ms": ms})
        data.apply(
            {"type": "memory", "arm": arm, "batch_size": 8, "step": 0, "rss_mb": 100.0 * (arm + 1)}
        )
    plots.refresh()
    return data


def _move_mouse(view, point: QPoint) -> None:
    """A mouse move over the plots' viewport, delivered at once (QTest's may be merged away
    when the pointer is already there)."""
    viewport = view.viewport()
    event = QMouseEvent(
        QEvent.Type.MouseMove,
        QPointF(point),
        QPointF(viewport.mapToGlobal(point)),
        Qt.MouseButton.NoButton,
        Qt.MouseButton.NoButton,
        Qt.KeyboardModifier.NoModifier,
    )
    QApplication.sendEvent(viewport, event)


def _global_rect(widget) -> QRect:
    return QRect(widget.mapToGlobal(QPoint(0, 0)), widget.size())


def test_the_legend_lists_every_arm_outside_the_plots(plots):
    _run(plots)
    assert plots.legend.names == ARMS
    for name in ARMS:
        assert name in plots.legend.text()
    legend = _global_rect(plots.legend)
    for plot in plots.plots:
        area = plots.view.mapFromScene(plot.vb.sceneBoundingRect()).boundingRect()
        area = QRect(plots.view.mapToGlobal(area.topLeft()), area.size())
        assert legend.isValid() and area.isValid()
        assert not legend.intersects(area), "the legend covers a plot's data area"


def test_the_crosshair_reads_every_arm_at_the_hovered_step(plots, qtbot):
    _run(plots)
    vb = plots.plots[0].vb
    y = sum(vb.viewRange()[1]) / 2
    scene_point = vb.mapViewToScene(QPointF(10.2, y))
    _move_mouse(plots.view, plots.view.mapFromScene(scene_point))
    assert plots.crosshair.step == 10
    step_text = plots.crosshair.texts[0].textItem.toPlainText()
    for arm, name in enumerate(ARMS):
        assert f"{name}: {arm + 1 + 10 / 100:.2f} ms" in step_text
    throughput = plots.crosshair.texts[1].textItem.toPlainText()
    assert f"eager: {8 * 1000 / 1.1:,.0f} samples/s" in throughput
    memory = plots.crosshair.texts[2].textItem.toPlainText()
    assert "aot_eager: RSS 300 MB" in memory and "alloc" not in memory
    assert all(line.isVisible() and line.value() == 10 for line in plots.crosshair.lines)
    # Leaving the data areas (over the left axis) hides it; sent as the scene reports it.
    plots.view.scene().sigMouseMoved.emit(vb.sceneBoundingRect().topLeft() - QPointF(20, 0))
    assert plots.crosshair.step is None and not plots.crosshair.texts[0].isVisible()


def test_markers_at_the_same_step_sit_at_different_heights(plots):
    data = _run(plots)
    for arm in (1, 2):
        data.apply(
            {
                "type": "compile",
                "arm": arm,
                "batch_size": 8,
                "step": 0,
                "kind": "first",
                "seconds": 1.0,
            }
        )
    plots.refresh()
    vb = plots.plots[0].vb
    heights = []
    for arm in (1, 2):
        (point,) = plots.arm_items.markers[arm].points()
        heights.append(vb.mapViewToScene(point.pos()).y())
    assert abs(heights[0] - heights[1]) >= 10, "one arm's marker hides the other's"
    plots.plots[0].setYRange(0, 1000)  # the markers follow a new y range
    (point,) = plots.arm_items.markers[1].points()
    assert point.pos().y() < 200


def test_the_memory_title_names_cuda_only_on_a_cuda_run(plots):
    _run(plots, device="cpu")
    assert "CUDA" not in plots.plots[2].titleLabel.text and "RSS" in plots.plots[2].titleLabel.text
    _run(plots, device="cuda")
    assert "CUDA allocated" in plots.plots[2].titleLabel.text
    data = _run(plots, device=None)  # a session that does not say: the data decides
    assert "CUDA" not in plots.plots[2].titleLabel.text
    data.apply({"type": "memory", "arm": 0, "batch_size": 8, "step": 5, "cuda_alloc_mb": 50.0})
    plots.refresh()
    assert "CUDA allocated" in plots.plots[2].titleLabel.text


def test_a_hint_stands_in_for_the_plots_until_a_run_starts(plots):
    assert plots.showing_hint and plots.hint.isVisible()
    assert plots.hint.geometry().contains(plots.view.geometry()), "the hint covers the empty axes"
    assert "press Run (Ctrl+R)" in plots.hint.text()
    _run(plots)
    assert not plots.showing_hint and plots.view.isVisible() and not plots.hint.isVisible()


def test_a_distributed_arm_shows_its_rank_spread_under_the_slowest_curve(plots):
    data = LiveData(["ddp"], [8], warmup=0, steps=10, device="cpu", eager=[False])
    plots.start(data)
    plots.timer.stop()
    slowest, fastest = [5.0, 6.0, 5.5], [4.0, 4.5, 4.2]
    data.apply(
        {
            "type": "steps",
            "arm": 0,
            "batch_size": 8,
            "start": 1,
            "ms": slowest,
            "ms_fastest": fastest,
        }
    )
    plots.refresh()
    band = plots.arm_items.bands[0]
    rect = band.path().boundingRect()
    assert (rect.left(), rect.right()) == (1.0, 3.0)
    assert (rect.top(), rect.bottom()) == (4.0, 6.0)
    assert band.zValue() < plots.arm_items.curves[0]["step_ms"].zValue()
    assert list(plots.arm_items.curves[0]["step_ms"].getData()[1]) == slowest
    assert band.brush().color().alpha() < 255
    assert "fastest to slowest rank" in plots.legend.text()
    no_spread = _run(plots)
    assert no_spread and plots.arm_items.bands[0].path().isEmpty()


def test_a_contended_block_is_shaded_over_its_steps_on_every_axis(plots):
    """A block the rest of the machine slowed (block_done, contended) is a hatched region over
    exactly its steps, with the reason on hover; a quiet block is not shaded."""
    from tcprof.app.plots.x_axis import ROW, WALL

    data = LiveData(["eager", "inductor"], [8], warmup=2, steps=10, device="cpu")
    plots.start(data)
    plots.timer.stop()
    for block, contended in ((0, False), (1, True)):
        start = 3 + block * 11  # warm-up 1..2, a discarded step before each block
        ms = [2.0] * 10
        t = 1.0 + block
        event = {"type": "steps", "arm": 1, "batch_size": 8, "start": start, "ms": ms}
        data.apply({**event, "phase": "measure", "block": block, "t": t})
        data.apply(
            {
                "type": "block_done",
                "arm": 1,
                "batch_size": 8,
                "block": block,
                "steps": 10,
                "busy_elsewhere": 1.4,
                "contended": contended,
                "t": t,
            }
        )
    plots.refresh()
    (region,) = plots.contention.items(1)
    assert region.getRegion() == (13.5, 23.5)  # steps 14..23
    assert "contended block (steps 14–23)" in region.toolTip()
    assert "1.4 cores" in region.toolTip()
    assert plots.contention.items(0) == []
    plots.axis.mode = WALL
    plots._axis_changed()
    (region,) = plots.contention.items(1)
    assert region.getRegion() == pytest.approx((1.98, 2.0))
    plots.axis.mode = ROW
    plots._axis_changed()
    (region,) = plots.contention.items(1)
    assert region.getRegion() == (13.5, 23.5)
    plots.legend.set_shown(1, False)  # hiding the arm hides its shading
    assert not region.isVisible()


def test_a_replayed_compile_marker_reads_as_a_live_one():
    timed = {"type": "compile", "arm": 0, "batch_size": 4, "step": 0, "kind": "first"}
    data = LiveData(["inductor"], [4, 8], warmup=0, steps=10)
    data.apply({**timed, "seconds": 1.1, "timer": True})
    data.apply({**timed, "batch_size": 8, "seconds": 2.5, "cost": True})
    texts = [data._marker_text(0, m) for m in data.arms[0].markers]
    assert "compile timer: 1.10 s" in texts[0] or "compile timer: 1.1 s" in texts[0], texts[0]
    assert "compile cost: 2.50 s" in texts[1] or "compile cost: 2.5 s" in texts[1], texts[1]
