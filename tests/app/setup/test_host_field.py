"""The Host field: empty is this machine, a host entered is remembered, newest first, and the
setup panel's config and state carry it."""

from __future__ import annotations

from tcprof.app.common.settings import Preferences
from tcprof.app.setup.host_field import HostField
from tcprof.app.setup.setup_panel import SetupPanel
from tcprof.profiler.config.examples import example_path


def test_entered_hosts_are_remembered_newest_first(qtbot):
    field = HostField()
    qtbot.addWidget(field)
    assert field.host() is None  # empty: this machine
    for host in ("gpu-a", "me@gpu-b", "gpu-a"):
        field.setCurrentText(f"  {host} ")
        field.lineEdit().editingFinished.emit()
    assert Preferences().recent_hosts() == ["gpu-a", "me@gpu-b"]
    assert field.host() == "gpu-a"
    again = HostField()  # a later window offers them
    qtbot.addWidget(again)
    assert [again.itemText(i) for i in range(again.count())] == ["gpu-a", "me@gpu-b"]
    assert again.currentText() == ""


def test_the_setup_panel_runs_on_the_host_and_restores_it(qtbot):
    panel = SetupPanel(None)
    qtbot.addWidget(panel)
    panel.model.set_path(str(example_path("simple")))
    assert panel.config().host is None
    with qtbot.waitSignal(panel.host.changed):
        panel.host.setCurrentText("gpu-box")
    assert panel.config().host == "gpu-box"
    other = SetupPanel(None)
    qtbot.addWidget(other)
    other.restore(panel.state())
    assert other.config().host == "gpu-box"
    other.restore({**panel.state(), "host": None})
    assert other.config().host is None
