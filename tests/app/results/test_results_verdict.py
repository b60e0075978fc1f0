"""The results read verdict first: a coloured sentence per compiled arm above the Summary, rows
grouped by batch size, speedups coloured as report.html colours them, a tooltip per column and
memory as a signed change with its direction spelled out."""

from __future__ import annotations

from tcprof.app.common.theme import error_colour, good_colour
from tcprof.app.results.results_view import ResultsView
from tcprof.profiler.config import ArmSpec
from tcprof.profiler.model.session import SessionModel
from tcprof.profiler.report.html import render_html
from tcprof.profiler.report.markdown import render_markdown
from tcprof.profiler.report.sections.columns import COLUMN_HELP
from tests.support.synthetic import synthetic_session


def _session() -> dict:
    session = synthetic_session(
        arms=(ArmSpec("eager"), ArmSpec("aot_eager"), ArmSpec("inductor")), batch_sizes=(8, 16)
    )
    aot, inductor = session["arms"][1], session["arms"][2]
    for r in aot["results"] + inductor["results"]:
        r["interval_covers_processes"] = True  # as if from two or more rounds
    for r in aot["results"]:
        r.update(speedup=1.21, speedup_ci=[1.17, 1.28], verdict="faster", memory_ratio=1 / 1.14)
    for r in inductor["results"]:
        r.update(speedup=0.8, speedup_ci=[0.75, 0.85], verdict="slower", memory_ratio=1 / 0.92)
    return session


def test_the_verdict_sits_above_the_summary_in_colour(qtbot):
    view = ResultsView()
    qtbot.addWidget(view)
    view.show_session(SessionModel.from_json(_session()))
    lines = view.verdict.lines()
    assert len(lines) == 2, "one line per compiled arm, its sizes summarised"
    assert lines[0].startswith("aot_eager is 1.21× faster at bs 8, 16")
    assert lines[1].startswith("inductor is slower at bs 8, 16")
    text = view.verdict.label.text()
    assert good_colour() in text.split("aot_eager")[0] and error_colour() in text
    assert view.verdict.isVisibleTo(view)
    view.show_session(SessionModel.from_json({"arms": []}))
    assert not view.verdict.isVisibleTo(view), "no verdict without a session"


def test_the_summary_groups_by_size_colours_speedups_and_explains_every_column(qtbot):
    view = ResultsView()
    qtbot.addWidget(view)
    view.show_session(SessionModel.from_json(_session()))
    rows = view.rows()
    assert [(r[0], r[1]) for r in rows] == [
        ("eager", "8"),
        ("aot_eager", "8"),
        ("inductor", "8"),
        ("eager", "16"),
        ("aot_eager", "16"),
        ("inductor", "16"),
    ]
    header = view.header()
    tips = [view.summary.horizontalHeaderItem(c).toolTip() for c in range(len(header))]
    assert all(tips), [h for h, t in zip(header, tips, strict=True) if not t]
    assert len(set(tips)) == len(tips), "one tooltip per column"
    speed, memory = header.index("speedup [95% CI]"), header.index("memory")
    assert view.summary.item(1, speed).foreground().color().name() == good_colour()
    assert view.summary.item(2, speed).foreground().color().name() == error_colour()
    assert (rows[1][memory], rows[2][memory]) == ("+14%", "−8%")
    assert (
        view.summary.item(1, memory).toolTip().startswith("uses 14% more tensor memory than eager")
    )
    assert (
        view.summary.item(2, memory).toolTip().startswith("uses 8% less tensor memory than eager")
    )
    assert "guard failed" in COLUMN_HELP["recompiles"] and "graphs" in COLUMN_HELP["breaks"]


def test_the_reports_open_with_the_same_verdict_and_memory_text():
    session = _session()
    html, md = render_html(SessionModel.read(session)), render_markdown(SessionModel.read(session))
    for text in (html, md):
        assert "aot_eager is 1.21× faster at bs 8, 16" in text
    assert '<ul class="verdict"><li class="good">' in html
    assert "+14%" in md and "−8%" in md
    assert 'title="uses 14% more tensor memory than eager' in html


def test_an_arm_keeps_its_plot_colour_in_the_summary_when_eager_is_not_first(qtbot):
    from tcprof.profiler.report.palette import ARM_COLOURS

    session = synthetic_session(arms=(ArmSpec("aot_eager"), ArmSpec("eager")))
    view = ResultsView()
    qtbot.addWidget(view)
    view.show_session(SessionModel.from_json(session))
    colours = {
        view.summary.item(r, 0).text(): view.summary.item(r, 0).foreground().color().name()
        for r in range(view.summary.rowCount())
    }
    assert colours == {"eager": ARM_COLOURS[0].lower(), "aot_eager": ARM_COLOURS[1].lower()}


def test_the_summarys_notes_name_the_windows_fields_not_cli_flags(qtbot):
    from tcprof.app.results.results_view import ResultsView

    view = ResultsView()
    qtbot.addWidget(view)
    session = _session()
    for arm in session["arms"]:
        for r in arm["results"]:
            r["process_medians_ms"] = [r.get("median_ms") or 1.0]
    session["config"]["replicates"] = 1
    view.show_session(SessionModel.from_json(session))
    tip = view.summary.toolTip()
    assert "--replicates" not in tip
    assert "the Replicates field" in tip, tip


def test_the_summarys_important_columns_fit_at_1280_px_and_the_rest_can_be_chosen(
    qtbot, make_window
):
    window = make_window()  # the real window, its setup panel shown beside the results
    window.resize(1280, 720)
    window.window_layout.apply_default_sizes()
    qtbot.waitUntil(lambda: window.results.width() < 1280 - 300)
    view = window.results
    session = _session()
    for arm in session["arms"]:  # the widest cells a run shows
        for r in arm["results"]:
            r.update(contended_blocks=3, blocks_measured=30)
    session["arms"][1]["results"][0]["interval_covers_processes"] = False
    view.show_session(SessionModel.from_json(session))
    header = view.header()
    shown = [c for c in range(len(header)) if not view.summary.isColumnHidden(c)]
    for name in ("memory", "accuracy", "recompiles", "breaks", "speedup [95% CI]"):
        assert header.index(name) in shown, name
    width = sum(view.summary.columnWidth(c) for c in shown)
    assert width <= view.summary.viewport().width(), (width, view.summary.viewport().width())
    # a hidden column comes back from the header's menu, and the choice is remembered
    p90 = header.index("p90 ms")
    assert view.summary.isColumnHidden(p90)
    action = next(a for a in view.columns.menu().actions() if a.text() == "p90 ms")
    action.setChecked(True)
    assert not view.summary.isColumnHidden(p90)
    again = ResultsView()
    qtbot.addWidget(again)
    again.show_session(SessionModel.from_json(session))
    assert not again.summary.isColumnHidden(p90)
    # an elided cell keeps its whole text in its tooltip
    status = header.index("status")
    assert "blocks contended" in view.summary.item(0, status).toolTip()


def test_a_failed_arms_row_keeps_its_first_step_and_compile(qtbot):
    """What the arm measured before failing stays in the Summary (it read 'error' and '-')."""
    session = synthetic_session()
    failed = session["arms"][1]["results"][0]
    failed.update(status="error", first_step_ms=14370.0, compile_timer_s=11.49, speedup=None)
    failed.update(compile_s=None, compile_cold_s=None, compile_warm_s=None)
    failed["compiled_while_measuring"] = False
    failed["error"] = {"kind": "runtime", "message": "the script raised", "steps_run": 2}
    view = ResultsView()
    qtbot.addWidget(view)
    view.show_session(SessionModel.from_json(session))
    header = view.header()
    row = dict(zip(header, view.rows()[1], strict=True))
    assert row["status"] == "error after 2 steps (first step 14.37 s)"
    assert row["compile s cold/warm"] == "11.49 (torch's compile timer)"
    status = view.summary.item(1, header.index("status"))
    assert status.toolTip() == "the script raised"
