"""A script's session from the events its workers send: the compute / own-time split of each
row, the loss curve, the arm's notes and files, and the reports that show them. The events are
real (the script run's worker driven in this process), relayed as the runner tags them."""

from __future__ import annotations

import textwrap

import numpy as np
import pytest

from tcprof.profiler.cli.summary import render_summary
from tcprof.profiler.config import ArmSpec
from tcprof.profiler.model.session import SessionModel
from tcprof.profiler.protocol.session_schema import session_problem
from tcprof.profiler.report.html import render_html
from tcprof.profiler.report.markdown import render_markdown
from tcprof.profiler.session.fold import SessionFold
from tests.support.script_harness import schedule, script_config, serve

pytestmark = pytest.mark.timeout(120, method="thread")

SCRIPT = """
    import time, torch
    model = torch.nn.Linear(3, 1)
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    for step in range(40):
        time.sleep({sleep})                   # the script's own time: its "data loading"
        loss = model(torch.randn(4, 3)).pow(2).mean()
        loss.backward()
        opt.step()
        opt.zero_grad()
        torch.save({{"step": step}}, "last.pt")
    """


@pytest.fixture(scope="module")
def session(tmp_path_factory):
    folder = tmp_path_factory.mktemp("script")
    path = folder / "loader_bound.py"
    path.write_text(textwrap.dedent(SCRIPT.format(sleep=0.05)))
    cfg = script_config(path, arms=(ArmSpec("eager"), ArmSpec("eager", label="twin")), steps=6)
    events = [{"type": "run_start", "config": cfg.to_dict(), "wall_time": 0.0}]
    for arm in (0, 1):
        events += [{**e, "arm": arm, "replicate": 0} for e in serve(schedule(cfg, arm))]
    events.append({"type": "run_end", "status": "completed", "wall_time": 1.0})
    return SessionFold.from_events(events).to_dict(), events, folder


def test_each_row_splits_the_step_into_compute_and_the_scripts_own_time(session):
    data, events, _ = session
    row = data["arms"][0]["results"][0]
    own = [
        v
        for e in events
        if e["type"] == "steps" and e.get("arm") == 0 and e["phase"] == "measure"
        for v in e["own_ms"]
    ]
    fig = row["script"]
    assert fig["own_median_ms"] == pytest.approx(float(np.median(own)))
    assert fig["own_median_ms"] >= 50 and fig["compute_median_ms"] == row["median_ms"]
    assert fig["step_median_ms"] == pytest.approx(fig["compute_median_ms"] + fig["own_median_ms"])
    assert fig["data_bound"] is True and fig["own_share"] > 0.5
    # a script's phase is not a batch size: its samples are the 4 rows its model is given
    assert fig["unit"] == "samples" and fig["samples_per_step"] == 4
    assert row["samples_per_s"] == pytest.approx(4 * 1000 / row["median_ms"])
    assert [k for k, _ in fig["loss_curve"]] == [0, 1, 3, 4, 5, 7, 8, 9]


def test_the_arm_lists_its_model_and_the_files_its_script_wrote(session):
    data, _, folder = session
    script = data["arms"][0]["script"]
    assert script["notes"][0]["kind"] == "model"
    assert "`model`, Linear (torch.nn.modules.linear)" in script["notes"][0]["text"]
    assert [f["path"] for f in script["files"]] == [str(folder / "last.pt")]
    assert data["samples"][0]["own_ms"] and len(data["samples"][0]["own_ms"]) == len(
        data["samples"][0]["ms"]
    )


def test_session_json_keeps_to_its_documented_shape(session):
    assert session_problem(session[0]) is None


def test_the_summary_and_both_reports_show_the_script(session):
    data, _, _ = session
    text = render_summary(SessionModel.read(data))
    assert "compute and the script's own time per step (medians):" in text
    assert "(data-bound)" in text and "the script wrote: " in text
    html = render_html(SessionModel.read(data))
    assert '<section id="script"><h2>Your script</h2>' in html and "<polyline" in html
    md = render_markdown(SessionModel.read(data))
    assert "**Your script**" in md and "| compute ms |" not in md.split("**Your script**")[0]
    assert "Loss per step (first steps):" in md


def test_the_verdict_speaks_of_a_scripts_phases_not_of_batch_sizes():
    from tcprof.profiler.model.verdict import script_words as _script_words

    text = "aot_eager is 1.20× faster at bs 1 [1.1–1.3], pays back its 3 s compile after 40 steps at bs 1"
    assert _script_words(text, {"sweep": None}) == (
        "aot_eager is 1.20× faster [1.1–1.3], pays back its 3 s compile after 40 steps"
    )
    assert _script_words("faster at bs 64, 128", {"sweep": "seq"}) == "faster at seq 64, 128"
    assert _script_words("faster at bs 8, 16", {"sweep": "batch_size"}) == "faster at bs 8, 16"


def test_start_up_is_the_median_over_the_rounds_first_steps(session):
    """One figure for every view (session.json's row, read by the terminal, both reports,
    the window and the API): the median of each round's start-up, not the first round's."""
    _, events, _ = session
    run = [e for e in events if e.get("arm") in (None, 0)]
    rounds = []
    for rep, startup in enumerate((0.9, 0.2, 0.3)):
        for e in run:
            if e.get("arm") is None:
                continue
            e = {**e, "replicate": rep}
            if e["type"] == "first_step":
                e["startup_s"] = startup
            rounds.append(e)
    cfg = {**events[0]["config"], "replicates": 3}
    cfg["arms"] = cfg["arms"][:1]
    folded = [{**events[0], "config": cfg}, *rounds, events[-1]]
    row = SessionFold.from_events(folded).to_dict()["arms"][0]["results"][0]
    assert row["script"]["startup_s"] == 0.3
