"""The Profile tab filters by arm and batch size and puts eager beside a compiled arm."""

from __future__ import annotations

from tcprof.app.results.profile_view import EMPTY, NO_PAIR, ProfileView
from tests.profiler.report.test_op_comparison import profiled_session


def test_profile_filters_and_compares(qtbot):
    view = ProfileView()
    qtbot.addWidget(view)
    view.show_session(profiled_session())
    assert len(view.rows()) == 5
    view.arm_filter.setCurrentIndex(view.arm_filter.findData("eager"))
    assert {r[0] for r in view.rows()} == {"eager"} and len(view.rows()) == 3
    view.bs_filter.setCurrentIndex(view.bs_filter.findData(16))
    assert view.rows() == [["eager", "16", "aten::addmm", "1", "4.000", "4.000"]]
    view.show_session(profiled_session())  # a refresh keeps the filters chosen
    assert view.bs_filter.currentData() == 16 and len(view.rows()) == 1

    assert view.pair.count() == 1 and view.pair.currentText() == "inductor · bs 8"
    assert view.comparison_rows()[0] == ["aten::addmm", "2.000", "1.500", "-0.500"]
    assert view.comparison.horizontalHeaderItem(2).text() == "inductor ms/step"
    assert view.comparison_rows()[2] == ["triton_poi_fused_relu_0", "-", "0.100", "+0.100"]


def test_profile_empty_states(qtbot):
    view = ProfileView()
    qtbot.addWidget(view)
    assert view.note.text() == EMPTY and view.views.isHidden()
    session = profiled_session()
    session["arms"] = session["arms"][:1]  # eager alone: nothing to compare
    view.show_session(session)
    assert not view.views.isHidden() and not view.comparison_note.isHidden()
    assert view.comparison_note.text() == NO_PAIR and view.comparison_rows() == []
