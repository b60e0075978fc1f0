"""One figure, one text: the same session row's step time, compile cost, tensor memory, memory
change and speedup read identically in the terminal, report.md, report.html, the trackers'
table and the window's Summary (all written by protocol/units.py)."""

from __future__ import annotations

import html
from pathlib import Path

from tcprof.app.results.results_view import ResultsView
from tcprof.profiler.cli.summary import render_summary
from tcprof.profiler.config import ArmSpec
from tcprof.profiler.model.session import SessionModel
from tcprof.profiler.protocol import units
from tcprof.profiler.report.html import render_html
from tcprof.profiler.report.markdown import render_markdown
from tcprof.profiler.trackers.content import session_log
from tests.support.synthetic import synthetic_session


def _session() -> dict:
    session = synthetic_session(arms=(ArmSpec("eager"), ArmSpec("aot_eager")), batch_sizes=(8,))
    row = session["arms"][1]["results"][0]
    row.update(
        median_ms=1234.5678,  # thousands: "1,235"
        speedup=1.2149,
        speedup_ci=[1.17, 1.28],
        interval_covers_processes=True,
        verdict="faster",
        compile_s=7.876,
        compile_cold_s=7.876,
        compile_warm_s=0.4449,
        memory_ratio=1 / 1.14,
        steady_peak_mb=0.0013,  # an 11-parameter model's tensors: "1.33 KB", never "0.00"
    )
    return session


def test_a_rows_figures_read_the_same_in_every_view(qtbot, tmp_path: Path):
    session = _session()
    step = units.ms(1234.5678, unit=False)
    compile_cost = f"{units.seconds(7.876, unit=False)} / {units.seconds(0.4449, unit=False)}"
    memory = units.megabytes(0.0013)
    change = units.change(1.14 - 1)
    speedup = units.ratio(1.2149)
    expected = [step, compile_cost, memory, change, speedup]
    assert expected == ["1,235", "7.88 / 0.44", "1.33 KB", "+14%", "1.21×"]

    view = ResultsView()
    qtbot.addWidget(view)
    view.show_session(SessionModel.from_json(session))
    (window_row,) = [r for r in view.rows() if r[0] == "aot_eager"]
    window = " | ".join(window_row)

    views = {
        "the window's Summary": window,
        "the terminal": render_summary(SessionModel.read(session)),
        "report.md": render_markdown(SessionModel.read(session)),
        "report.html": html.unescape(render_html(SessionModel.read(session))),
        "the trackers' table": session_log(SessionModel.read(session), tmp_path).table,
    }
    for name, text in views.items():
        missing = [figure for figure in expected if figure not in text]
        assert not missing, f"{name} does not write {missing} as every other view does"
