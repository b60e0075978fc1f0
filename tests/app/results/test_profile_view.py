"""The Profile tab filters by arm and batch size and puts eager beside a compiled arm."""

from __future__ import annotations

from tcprof.app.results.profile_view import EMPTY, NO_PAIR, ProfileView
from tcprof.profiler.model.session import SessionModel
from tests.profiler.report.test_op_comparison import profiled_session


def test_profile_filters_and_compares(qtbot):
    view = ProfileView()
    qtbot.addWidget(view)
    view.show_session(SessionModel.from_json(profiled_session()))
    assert len(view.rows()) == 5
    view.arm_filter.setCurrentIndex(view.arm_filter.findData("eager"))
    assert {r[0] for r in view.rows()} == {"eager"} and len(view.rows()) == 3
    view.bs_filter.setCurrentIndex(view.bs_filter.findData(16))
    assert view.rows() == [["eager", "16", "aten::addmm", "1", "4.000", "4.000"]]
    view.show_session(
        SessionModel.from_json(profiled_session())
    )  # a refresh keeps the filters chosen
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
    view.show_session(SessionModel.from_json(session))
    assert not view.views.isHidden() and not view.comparison_note.isHidden()
    assert view.comparison_note.text() == NO_PAIR and view.comparison_rows() == []


def test_a_profile_that_does_not_describe_the_step_is_flagged_not_read_as_savings(qtbot):
    from PySide6.QtGui import QColor

    from tcprof.app.common.theme import good_colour

    view = ProfileView()
    qtbot.addWidget(view)
    session = profiled_session()
    view.show_session(SessionModel.from_json(session))
    moved = view.comparison.item(0, 3)
    assert moved.foreground().color() == QColor(good_colour()), "an honest pair is coloured"
    eager = next(r for r in session["arms"][0]["results"] if r["batch_size"] == 8)
    eager["profile"]["mismatch"] = (
        "the profile does not describe the measured step: its steps took 230.000 ms each "
        "against a measured median of 9.170 ms"
    )
    view.show_session(SessionModel.from_json(session))
    assert "Flagged (eager bs 8)" in view.note.text()
    assert not view.comparison_note.isHidden()
    assert "not savings" in view.comparison_note.text()
    moved = view.comparison.item(0, 3)
    assert moved.foreground().color() != QColor(good_colour())
    assert view.comparison_rows()[0][3] == "-0.500", "the figure stays, uncoloured"
