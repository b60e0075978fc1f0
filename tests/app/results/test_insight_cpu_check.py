"""The Compile time tab says the cold compile leaves out inductor's once-per-machine CPU check,
as both reports do (report/sections/compile_list.py's sentence)."""

from __future__ import annotations

import pytest

from tcprof.profiler.model.session import SessionModel
from tests.support.synthetic import eval_first_session

pytestmark = pytest.mark.timeout(60)


def test_the_compile_time_tab_names_the_cpu_check_left_out(qtbot):
    from tcprof.app.results.insight_view import InsightView

    view = InsightView()
    qtbot.addWidget(view)
    session = eval_first_session()
    session["arms"][1]["model"]["cpu_check"] = {"seconds": 9.8, "built": True, "first_s": 9.8}
    view.show_session(SessionModel.from_json(session))
    view.details.setCurrentWidget(view.times_page)
    assert (
        "(inductor's once-per-machine CPU check, 9.80 s, not included: paid once per machine or "
        "fresh cache; it ran first on this machine in this run" in view.compile_case.text()
    )
