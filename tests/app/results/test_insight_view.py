"""The Compile insight tab fills after a run: the batch-size matrix, graph breaks with the
user's source lines, recompiles with their guard failures, and the compile-time breakdown."""

from __future__ import annotations

import pytest

from tcprof.profiler.config import ArmSpec
from tcprof.profiler.config.examples import example_path
from tcprof.profiler.model.session import SessionModel
from tests.app.conftest import FAST_RUN_TIMEOUT_MS, configure_fast


@pytest.mark.slow
def test_insight_tab_after_a_graph_break_sweep(window, qtbot):
    window.load_model(str(example_path("graph_break")))
    configure_fast(
        window,
        arms=("eager", ArmSpec("aot_eager"), ArmSpec("aot_eager", dynamic=False)),
        batch_sizes="8, 16, 32",
        warmup=1,
        steps=4,
    )
    window.setup.measurement.accuracy.setChecked(False)  # not what this test is about
    # nor are the blocks: fast_args's two, with no minimum length, for nine arm × size rows
    window.setup.carried.set_options({"blocks": 2, "min_block_ms": 0.0})
    with qtbot.waitSignal(window.controller.runEnded, timeout=FAST_RUN_TIMEOUT_MS):
        window.start_run()
    view = window.results.insight
    matrix = {
        view.matrix.item(r, 0).text(): [view.matrix.item(r, c).text() for c in range(1, 4)]
        for r in range(view.matrix.rowCount())
    }
    assert matrix["eager"] == ["eager (not compiled)"] * 3
    assert matrix["aot_eager(dynamic=False)"] == ["compiled", "recompiled", "recompiled"]
    assert matrix["aot_eager"][0] == "compiled" and matrix["aot_eager"][2] == "reused a graph"
    assert "size mismatch" in view.matrix.item(2, 2).toolTip()

    view.arm_picker.setCurrentText("aot_eager(dynamic=False)")
    assert view.breaks.rowCount() == 1
    assert view.breaks.item(0, 1).text() == "graph_break.py:16"
    view.breaks.selectRow(0)
    detail = view.break_detail.toPlainText()
    assert "> 16 |" in detail and "if h.mean() > 0.5" in detail, (
        "the source line of the break is shown"
    )
    assert "Hint:" in detail
    reasons = [view.recompiles.item(r, 5).text() for r in range(view.recompiles.rowCount())]
    assert any("expected 8, actual 16" in text for text in reasons)
    assert view.times.rowCount() == 3
    assert view.times.item(0, 1).text() == "compiled"


def test_insight_tables_from_a_session_dict(qtbot, tmp_path):
    """Each table of the picked arm, cell by cell, with the tooltips that explain a cell."""
    from tcprof.app.results.insight_view import InsightView

    model = tmp_path / "m.py"
    model.write_text("".join(f"line {n}\n" for n in range(1, 21)))
    arm = {
        "name": "aot_eager",
        "backend": "aot_eager",
        "graph_breaks": [
            {"count": 2, "file": str(model), "line": 10, "batch_sizes": [8, 16],
             "reason": "data-dependent branch", "explanation": "x.item()", "hints": ["use where"]}
        ],
        "recompiles": [
            {"batch_size": 16, "step": 0, "frame": "forward", "file": str(model), "line": 3,
             "seconds": 0.25, "reason": "size mismatch at index 0. expected 8, actual 16"}
        ],
        "results": [
            {"batch_size": 8, "status": "ok", "compile_status": "compiled", "first_step_ms": 1500.0,
             "compile_cold_s": 1.25, "compile_missing": {"warm": "one round: no warm compile"},
             "compile_breakdown": {"dynamo_s": 0.5}},
            {"batch_size": 16, "status": "oom", "compile_status": "recompiled"},
        ],
    }  # fmt: skip
    session = {"config": {"batch_sizes": [8, 16]}, "arms": [
        {"name": "eager", "backend": "eager", "results": [
            {"batch_size": 8, "status": "ok", "compile_status": "eager"}]},
        arm,
    ]}  # fmt: skip
    view = InsightView()
    qtbot.addWidget(view)
    view.show_session(SessionModel.from_json(session))

    def cells(table):
        return [
            [table.item(r, c).text() for c in range(table.columnCount())]
            for r in range(table.rowCount())
        ]

    assert cells(view.matrix) == [
        ["eager", "eager (not compiled)", "-"],
        ["aot_eager", "compiled", "error"],
    ]
    assert view.arm_picker.currentText() == "aot_eager" and view.arm_picker.count() == 1
    assert "1 distinct graph break(s), 1 recompile(s)." in view.summary.text()
    assert cells(view.breaks) == [["2", "m.py:10", "8, 16", "data-dependent branch"]]
    assert view.breaks.item(0, 1).toolTip() == str(model)
    assert view.breaks.item(0, 3).toolTip() == "x.item()"
    assert "> 10 | line 10" in view.break_detail.toPlainText(), "the first break is selected"
    assert "Hint: use where" in view.break_detail.toPlainText()
    assert cells(view.recompiles) == [
        ["16", "0", "forward", "m.py:3", "0.25", "size mismatch at index 0. expected 8, actual 16"]
    ]
    times = cells(view.times)
    assert times[0][:7] == ["8", "compiled", "1.50", "1.25", "-", "-", "0.50"]
    assert view.times.item(0, 5).toolTip() == "one round: no warm compile"
    assert times[1][:3] == ["16", "recompiled", "-"]

    view.show_session(SessionModel.from_json({"arms": [session["arms"][0]]}))  # no compiled arm
    assert view.summary.text() == "No compiled arm in this session."
    assert view.breaks.rowCount() == view.recompiles.rowCount() == view.times.rowCount() == 0


def test_log_panel_filters_by_artifact(qtbot):
    from tcprof.app.results.log_panel import LogPanel

    panel = LogPanel()
    qtbot.addWidget(panel)
    panel.start(["eager", "aot_eager"])
    panel.add_events(
        [
            {"type": "log", "arm": 0, "stream": "output", "text": "hello from the model"},
            {
                "type": "log",
                "arm": 1,
                "stream": "torch",
                "artifact": "guards",
                "text": "GUARDS: x.size()[0] == 8",
            },
            {
                "type": "log",
                "arm": 1,
                "stream": "torch",
                "artifact": "graph_breaks",
                "text": "Graph break in user code",
            },
            {
                "type": "graph_break",
                "arm": 1,
                "batch_size": 8,
                "reason": "Data-dependent branching",
            },
        ]
    )
    assert panel.text.toPlainText().count("\n") == 3
    panel.source.setCurrentIndex(panel.source.findData("guards"))
    assert panel.text.toPlainText() == "[aot_eager] GUARDS: x.size()[0] == 8"
    panel.source.setCurrentIndex(panel.source.findData("model output"))
    assert panel.text.toPlainText() == "[eager] hello from the model"
    panel.filter.setCurrentIndex(panel.filter.findData(1))
    assert panel.text.toPlainText() == ""


def test_prewarmed_workers_are_used_and_closed_with_the_window(make_window, qtbot):
    window = make_window(prewarm=True)
    qtbot.waitUntil(lambda: window.environment is not None, timeout=60_000)
    qtbot.waitUntil(lambda: window.pool.ready_count() == 2, timeout=120_000)
    ready = {w.pid for w in window.pool._ready}
    configure_fast(window, batch_sizes="8", warmup=1, steps=4)
    with qtbot.waitSignal(window.controller.runEnded, timeout=FAST_RUN_TIMEOUT_MS):
        window.start_run()
    assert {a.pid for a in window.controller.session().arms} == ready
    window.close()  # the fixture checks that no worker process is left behind


def test_opening_a_saved_session_puts_its_setup_back(window, qtbot, tmp_path):
    import subprocess
    import sys

    out = tmp_path / "saved"
    subprocess.run(
        [
            sys.executable,
            "-m",
            "profiler",
            "run",
            "--example",
            "graph_break",
            "--arms",
            "eager; aot_eager:dynamic=false",
            "--batch-sizes",
            "8,16",
            "--warmup",
            "1",
            "--steps",
            "3",
            "--seed",
            "7",
            "--replicates",
            "1",
            "--blocks",
            "3",
            "--sequential",
            "--min-block-ms",
            "0",
            "--no-accuracy",
            "--quiet",
            "--out",
            str(out),
        ],
        check=True,
        capture_output=True,
        timeout=240,
    )
    assert window.sessions.open_session(out / "session.json")
    setup = window.setup
    assert [a.name for a in setup.arms.arms()] == ["eager", "aot_eager(dynamic=False)"]
    assert setup.batch_sizes.text() == "8, 16"
    assert (setup.warmup.value(), setup.steps.value(), setup.seed.value()) == (1, 3, 7)
    assert setup.measurement.replicates.value() == 1
    assert not setup.measurement.accuracy.isChecked()
    assert setup.carried.options() == {"blocks": 3, "sequential": True, "min_block_ms": 0.0}
    qtbot.waitUntil(lambda: setup.model.current_path().endswith("graph_break.py"), timeout=10_000)
    config = setup.config()
    assert (config.blocks, config.sequential, config.min_block_ms) == (3, True, 0.0)
