"""A training script's session in the results: the Summary names what each compiled arm
compiled and where (once, not per phase), the Your script tab has the command, the model, each
step's compute and own time and the files written, a model file's session has no such tab, and
a failed arm's verdict names the window's fields, not the engine's flags."""

from __future__ import annotations

import pytest

from tcprof.app.results.results_view import ResultsView
from tcprof.app.results.script_view import summary_note
from tcprof.profiler.model.session import SessionModel

pytestmark = pytest.mark.timeout(60)

MODEL_NOTE = (
    "the model is `model`, Net (train.py:10), whose parameters SGD at train.py:24 optimizes"
)
IN_PLACE = "`model`, Net (train.py:10), compiled in place with backend=aot_eager"


def _row(bs: int, own: float, **extra) -> dict:
    figures = {"compute_median_ms": 2.0, "own_median_ms": own, "step_median_ms": 2.0 + own}
    figures.update(own_share=own / (2.0 + own), data_bound=own >= 2.0, startup_s=0.5)
    return {"batch_size": bs, "status": "ok", "median_ms": 2.0, "script": figures, **extra}


def _session(failed: bool = False) -> dict:
    compiled_row = (
        {
            "batch_size": 8,
            "status": "error",
            "error": {"message": "no optimizer step in 120 s: `--step-on forward` for inference"},
        }
        if failed
        else _row(8, 3.0)
    )
    arms = [
        {
            "index": 0,
            "name": "eager",
            "backend": "eager",
            "results": [_row(8, 0.5), _row(16, 0.5)],
            "script": {
                "notes": [{"kind": "model", "text": MODEL_NOTE}] * 2,
                "files": [{"path": "/w/out/ckpt.pt", "bytes": 1234}],
            },
        },
        {
            "index": 1,
            "name": "aot_eager",
            "backend": "aot_eager",
            "results": [compiled_row, _row(16, 3.0)],
            "script": {"notes": [{"kind": "in_place", "text": IN_PLACE}] * 2, "files": []},
        },
    ]
    config = {
        "script": {"path": "/w/train.py", "args": ["--bs={batch_size}"], "sweep": "batch_size"},
        "batch_sizes": [8, 16],
        "arms": [{"backend": "eager"}, {"backend": "aot_eager"}],
    }
    return {"status": "completed", "baseline": "eager", "config": config, "arms": arms}


@pytest.fixture
def results(qtbot):
    view = ResultsView()
    qtbot.addWidget(view)
    return view


def test_a_scripts_session_says_what_was_compiled_where_and_its_own_time(results):
    session = _session()
    note = summary_note(SessionModel.from_json(session))
    assert note.splitlines()[0] == f"aot_eager: {IN_PLACE}"  # once, and not the eager arm's
    assert note.count(IN_PLACE) == 1 and "data-bound" in note
    results.show_session(SessionModel.from_json(session))
    assert results.script_note.text() == note and not results.script_note.isHidden()
    tab = results.script
    assert results.isTabVisible(results.indexOf(tab))
    assert "python /w/train.py --bs={batch_size}" in tab.command.text()
    assert tab.notes.text().count(MODEL_NOTE) == 1
    assert tab.notes.text().count("compiled in place") == 1
    cells = [[tab.split.item(r, c).text() for c in range(4)] for r in range(tab.split.rowCount())]
    assert cells[0] == ["eager", "batch_size=8", "2.00", "0.500"]
    assert cells[2][:2] == ["aot_eager", "batch_size=8"] and cells[2][3] == "3.00"
    assert "The script wrote: /w/out/ckpt.pt (1,234 bytes)" in tab.after.toPlainText()
    results.show_session(
        SessionModel.from_json({"arms": [], "config": {"source": {"path": "/w/model.py"}}})
    )
    assert not results.isTabVisible(results.indexOf(tab)) and results.script_note.isHidden()


def test_a_failed_arms_verdict_names_the_windows_fields(results):
    results.show_session(SessionModel.from_json(_session(failed=True)))
    text = results.verdict.label.text()
    assert "forward in the Step on field" in text and "--step-on" not in text


def test_a_scripts_summary_counts_its_own_unit_with_no_batch_size_of_one(results):
    """A language model's script without a sweep: tokens per step where the batch size was,
    tokens/s where samples/s was, and the tab says how they were counted."""
    session = _session()
    session["config"]["script"] = {"path": "/w/train.py", "args": [], "sweep": None}
    session["config"]["batch_sizes"] = [1]
    for arm in session["arms"]:
        row = _row(1, 0.5)
        row["script"].update(
            unit="tokens", tokens_per_step=2048.0, samples_per_step=8.0, work_per_step=2048.0
        )
        row["script"]["work_per_s"] = row["script"]["tokens_per_s"] = 2048 * 1000 / 2.0
        arm["results"] = [row]
    results.show_session(SessionModel.from_json(session))
    header = results.columns.labels()  # whole, however narrow the table (elided titles)
    assert "tokens/s" in header and "per step" in header
    assert "bs" not in header and "samples/s" not in header
    cells = [results.summary.item(0, c).text() for c in range(results.summary.columnCount())]
    assert "2,048 tokens" in cells and "1,024,000" in cells
    assert "padding counted" in results.script.after.toPlainText()
