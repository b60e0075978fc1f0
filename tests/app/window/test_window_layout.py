"""The window's layout: splitters that cannot crush the plots or the results, a collapsible
setup panel, View → Reset layout, sizes remembered across restarts (bad ones ignored), and
results marked once the setup changes. Windows without background workers."""

from __future__ import annotations

import json

import pytest
from PySide6.QtCore import QByteArray, QPoint, QRect
from PySide6.QtWidgets import QScrollArea

from tcprof.app.common.settings import qsettings
from tcprof.app.plots.plots_slot import MIN_HEIGHT as PLOTS_MIN_HEIGHT
from tcprof.app.window.layout import RESULTS_MIN_HEIGHT, SETUP_MIN_WIDTH
from tcprof.app.window.stale_results import STALE_TEXT
from tests.app.conftest import write_model, write_session


def _shown(make_window, qtbot, width=1024, height=640):
    window = make_window(background=False)
    window.resize(width, height)
    qtbot.waitUntil(lambda: window.plots is not None, timeout=5000)
    return window


def test_splitters_keep_plots_and_results_legible(make_window, qtbot):
    window = _shown(make_window, qtbot)
    layout = window.window_layout
    right, main = layout.right, layout.main
    for sizes in ([0, 2000], [2000, 0]):  # as far as a drag could go, either way
        right.setSizes(sizes)
        assert window.plots_slot.height() >= PLOTS_MIN_HEIGHT
        assert window.results.height() >= RESULTS_MIN_HEIGHT
        assert all(size > 0 for size in right.sizes())
    main.setSizes([0, 2000])
    assert layout.setup_box.width() >= SETUP_MIN_WIDTH
    assert not right.childrenCollapsible() and not main.childrenCollapsible()
    assert window.height() <= 640, "the minimums fit a 1024x640 window"


def test_reset_layout_restores_sizes_and_shows_the_setup_panel(make_window, qtbot):
    window = _shown(make_window, qtbot, 1280, 720)
    layout, commands = window.window_layout, window.commands
    default = layout.right.sizes()
    default_width = layout.main.sizes()[0]
    assert SETUP_MIN_WIDTH <= default_width <= 0.3 * 1280
    layout.right.setSizes([100, 2000])
    commands.show_setup.trigger()  # View → Setup panel: hidden
    assert not layout.setup_visible and layout.show_setup_button.isVisible()
    assert not commands.show_setup.isChecked()
    commands.reset_layout.trigger()
    assert layout.setup_visible and commands.show_setup.isChecked()
    assert not layout.show_setup_button.isVisible()
    assert layout.right.sizes() == default and layout.main.sizes()[0] == default_width
    assert window.results.height() >= RESULTS_MIN_HEIGHT
    layout.hide_setup_button.click()
    assert not layout.setup_visible and not commands.show_setup.isChecked()
    layout.show_setup_button.click()
    assert layout.setup_visible


def test_splitter_sizes_and_the_hidden_panel_survive_a_restart(make_window, qtbot):
    first = _shown(make_window, qtbot, 1280, 720)
    first.window_layout.right.setSizes([300, 330])
    first.window_layout.main.setSizes([420, 860])
    saved = (first.window_layout.right.sizes(), first.window_layout.main.sizes())
    first.close()
    second = _shown(make_window, qtbot, 1280, 720)
    assert second.window_layout.restored
    assert (second.window_layout.right.sizes(), second.window_layout.main.sizes()) == saved
    second.window_layout.set_setup_visible(False)
    second.close()
    third = _shown(make_window, qtbot, 1280, 720)
    assert not third.window_layout.setup_visible and not third.commands.show_setup.isChecked()
    assert third.window_layout.right.sizes() == saved[0]
    third.commands.show_setup.trigger()
    assert third.window_layout.setup_box.width() >= SETUP_MIN_WIDTH


def test_a_bad_or_old_saved_layout_gives_the_defaults(make_window, qtbot):
    settings = qsettings()
    settings.setValue("window/layout_version", 2)
    settings.setValue("window/splitters/main", QByteArray(b"not a splitter state"))
    settings.setValue("window/splitters/right", QByteArray(b"\x00\x01"))
    settings.sync()
    window = _shown(make_window, qtbot, 1280, 720)
    assert not window.window_layout.restored
    main = window.window_layout.main
    assert main.sizes()[0] == window.window_layout.default_setup_width()
    assert window.results.height() >= RESULTS_MIN_HEIGHT
    window.close()
    settings.setValue("window/layout_version", 1)  # an older layout's states are dropped
    settings.sync()
    again = _shown(make_window, qtbot, 1280, 720)
    assert not again.window_layout.restored


def test_results_are_marked_once_the_setup_changes(make_window, qtbot, tmp_path):
    window = _shown(make_window, qtbot, 1280, 720)
    assert window.plots.showing_hint
    write_session(tmp_path / "s1", started_at=1.0)
    assert window.open_path(str(tmp_path / "s1"))
    qtbot.waitUntil(lambda: window.stale.shown is not None, timeout=2000)
    notice = window.window_layout.stale_notice
    assert not window.plots.showing_hint and not notice.isVisible()
    before = window.setup.batch_sizes.text()
    window.setup.batch_sizes.setText("1, 2")
    assert notice.isVisible() and notice.text() == STALE_TEXT
    assert window.plots.stale
    assert notice.geometry().bottom() <= window.results.geometry().top(), "above the verdict"
    window.setup.batch_sizes.setText(before)  # back to what was measured: no mark
    assert not notice.isVisible() and not window.plots.stale
    other = write_model(
        tmp_path, "other.py", "import torch.nn as nn\nM = lambda: nn.Linear(3, 1)\n"
    )
    window.load_model(other)
    assert notice.isVisible() and window.plots.stale
    window.open_path(str(tmp_path / "s1"))  # a session shown again: what it shows is current
    qtbot.waitUntil(lambda: not notice.isVisible(), timeout=2000)


ADVICE = [
    {
        "message": f"{n} recompile(s): dim 0 of x changed size",
        "fix": "torch._dynamo.mark_dynamic(x, 0) before the first call",
        "apply": "mark_dynamic=0" if n == 2 else None,
    }
    for n in (2, 3, 4, 5)
]


def _with_advice(tmp_path):
    session = write_session(tmp_path / "advised", started_at=1.0)
    session["arms"][1]["advice"] = ADVICE
    (tmp_path / "advised" / "session.json").write_text(json.dumps(session))
    return tmp_path / "advised"


def _in_window(widget, window) -> QRect:
    return QRect(widget.mapTo(window, QPoint(0, 0)), widget.size())


@pytest.mark.parametrize("size", [(1024, 640), (1280, 720), (1600, 1000)])
def test_the_window_holds_from_1024x640_with_the_error_banner(make_window, qtbot, tmp_path, size):
    """Nothing overlaps and nothing is squeezed to nothing: the right side scrolls when the
    plots' and the results' minimums do not fit, and the window may be that short."""
    window = _shown(make_window, qtbot, *size)
    assert window.open_path(str(_with_advice(tmp_path)))
    message = "cannot import /home/someone/projects/a-rather-long-folder-name/model.py: "
    window.banner.add({"kind": "load", "message": message + "name 'nn' is not defined"}, [])
    window.results.setCurrentWidget(window.results.insight)
    insight = window.results.insight
    insight.details.setCurrentWidget(insight.advice_page)
    qtbot.waitUntil(lambda: insight.advice.isVisible(), timeout=2000)
    window.resize(*size)
    qtbot.waitUntil(  # the size taken and the layout settled under it
        lambda: (
            (window.width(), window.height()) == size
            and window.results.height() >= window.results.minimumSizeHint().height()
        ),
        timeout=2000,
    )
    assert window.minimumSizeHint().height() <= 640
    assert (window.width(), window.height()) == size, "the window takes the size asked"
    matrix = _in_window(insight.matrix, window)
    for widget in (insight.arm_picker, insight.summary, insight.details):
        assert not matrix.intersects(_in_window(widget, window)), widget
    arm = _in_window(insight.arm_picker, window)
    assert arm.top() >= matrix.bottom() and arm.height() >= insight.arm_picker.sizeHint().height()
    row = insight.advice.rowHeight(0)
    assert insight.advice.rowCount() == 4 and row > 0
    assert insight.advice.viewport().height() >= 3 * row, "at least three rows of advice"
    assert window.plots_slot.height() >= PLOTS_MIN_HEIGHT
    assert window.results.height() >= window.results.minimumSizeHint().height()
    scroll = window.window_layout.right_scroll
    room = scroll.viewport().width()
    for part in (window.results, window.banner):  # neither widens the right side
        assert part.minimumSizeHint().width() <= room, part
    if size != (1024, 640):  # (at 1024 wide, the plots' controls row alone may be wider)
        assert scroll.horizontalScrollBar().maximum() == 0, "no sideways scrolling"
    if size == (1600, 1000):
        assert scroll.verticalScrollBar().maximum() == 0, "a tall window does not scroll"
    else:  # everything can be scrolled to: the advice's last row, the plots' step axis
        bar = scroll.verticalScrollBar()
        bar.setValue(bar.maximum())
        qtbot.waitUntil(lambda: bar.value() == bar.maximum(), timeout=2000)
        advice = _in_window(insight.advice, window)
        assert advice.bottom() <= _in_window(scroll.viewport(), window).bottom()
    window.banner.clear()
    qtbot.waitUntil(lambda: insight.advice.viewport().height() >= 3 * row, timeout=2000)
    window.banner.add({"kind": "load", "message": "no such file: /" + "long-folder/" * 30}, [])
    qtbot.waitUntil(window.banner.isVisible, timeout=2000)
    assert window.banner.minimumSizeHint().width() <= room, "a long path does not widen it"


def test_at_1024x640_the_setup_buttons_and_the_summarys_last_column_are_in_view(
    make_window, qtbot, tmp_path
):
    """The setup panel's buttons show their whole text inside the panel's visible area (no
    sideways scrolling there), and the Summary's columns narrow to its width, the last in
    view, each narrowed title whole in its tooltip; wider, they take their widths back."""
    window = _shown(make_window, qtbot)
    write_session(tmp_path / "s1", started_at=1.0)
    assert window.open_path(str(tmp_path / "s1"))
    qtbot.waitUntil(lambda: window.results.summary.rowCount() == 2, timeout=2000)
    scroll = window.window_layout.setup_box.findChild(QScrollArea)
    visible = _in_window(scroll.viewport(), window)
    setup = window.setup
    buttons = [setup.model.browse, setup.arms.remove_button, setup.arms.edit_button]
    for button in buttons:
        assert button.isVisible(), button.text()
        whole = button.fontMetrics().horizontalAdvance(button.text())
        assert button.width() >= whole + 8, button.text()
        assert visible.contains(_in_window(button, window)), button.text()
    assert scroll.horizontalScrollBar().maximum() == 0, "the panel fits: no sideways scroll"
    table = window.results.summary
    shown = [c for c in range(table.columnCount()) if not table.isColumnHidden(c)]
    last = shown[-1]
    qtbot.waitUntil(
        lambda: (
            table.columnViewportPosition(last) + table.columnWidth(last) <= table.viewport().width()
        ),
        timeout=2000,
    )
    assert table.horizontalScrollBar().maximum() == 0
    assert window.results.header()[last] == "breaks", "labels read whole, though elided"
    narrowed = [c for c in shown if "…" in table.horizontalHeaderItem(c).text()]
    assert narrowed, "at 1024 px some titles give way"
    for c in narrowed:
        assert window.results.header()[c] in table.horizontalHeaderItem(c).toolTip()
    window.window_layout.set_setup_visible(False)  # room again: whole titles
    qtbot.waitUntil(
        lambda: not any("…" in table.horizontalHeaderItem(c).text() for c in shown),
        timeout=2000,
    )
