"""tcprof.Session, load and compare on sessions folded from hand-made events (no worker)."""

from __future__ import annotations

import copy
import dataclasses
import html

import pytest

import tcprof
from tcprof.profiler.folders.files import read_session, save_session
from tcprof.profiler.model.json_values import thaw
from tcprof.profiler.report.compare import compare_saved
from tcprof.profiler.report.html import CSP
from tests.support.synthetic import synthetic_session


def _saved(tmp_path, doc, name="run"):
    folder = tmp_path / name
    folder.mkdir()
    saved, problem = save_session(doc, folder)
    assert problem is None
    return folder


def _with_row(doc, arm, **fields):
    out = copy.deepcopy(doc)
    for a in out["arms"]:
        if a["name"] == arm:
            a["results"][0].update(fields)
    return out


def test_a_session_reads_its_arms_rows_verdicts_and_what_dynamo_did(tmp_path):
    doc = synthetic_session(batch_sizes=(8, 16))
    session = tcprof.load(_saved(tmp_path, doc))
    assert session.path == (tmp_path / "run").absolute()
    assert session.status == "completed" and session.baseline == "eager"
    assert [a.name for a in session.arms] == ["eager", "aot_eager"]
    assert session.batch_sizes == (8, 16)
    compiled = session.arm("aot_eager")
    assert compiled.compiled and not session.arm("eager").compiled
    assert [r.batch_size for r in compiled.rows] == [8, 16]
    row = session.row("aot_eager", 8)
    source = doc["arms"][1]["results"][0]
    assert row.median_ms == source["median_ms"] and row.steps == source["steps"]
    assert row.speedup is not None and row.speedup.value == source["speedup"]
    assert row.speedup.interval is None and source["speedup_ci"] is None, "one round: none"
    assert row.speedup.one_process_interval.low == source["speedup_ci_one_process"][0]
    assert row.speedup.covers_processes is False and row.speedup.settled is False
    assert row.verdict == "no interval" and session.verdict("eager", 8) == "baseline"
    assert compiled.verdict == session.verdicts[0]
    assert compiled.verdict.startswith("aot_eager has no interval yet")
    (gb,) = compiled.graph_breaks
    assert gb.reason == "Data-dependent branching" and gb.count == 2 and gb.batch_sizes == (8, 16)
    assert [r.batch_size for r in compiled.recompiles] == [8, 16]
    assert compiled.recompiles[0].line == 5 and row.recompiles == 1 and row.graph_breaks == 1
    assert row.compile is not None and row.compile.cold_s == source["compile_cold_s"]
    assert row.compile.missing["warm"] == "no warm round was measured"
    assert session.to_dict() == read_session(tmp_path / "run")


def test_each_outcome_has_the_verdict_sentences_word(tmp_path):
    doc = synthetic_session()
    rounds = {"interval_covers_processes": True}  # as if from two or more rounds
    cases = {
        "faster": {"verdict": "faster", "speedup": 1.5, "speedup_ci": [1.4, 1.6], **rounds},
        "slower": {"verdict": "slower", "speedup": 0.5, "speedup_ci": [0.4, 0.6], **rounds},
        "no difference": {"verdict": "no_difference", **rounds},
        "no interval": {},
        "fell back": {"fell_back": True},
        "failed": {"status": "error", "error": {"kind": "compile", "message": "boom"}},
        "not measured": {"verdict": None, "speedup": None},
    }
    for word, fields in cases.items():
        session = tcprof.Session.from_dict(_with_row(doc, "aot_eager", **fields))
        assert session.verdict("aot_eager", 8) == word
    failed = tcprof.Session.from_dict(_with_row(doc, "aot_eager", **cases["failed"]))
    assert failed.row("aot_eager", 8).error == tcprof.Problem("compile", "boom", None, None, None)


def test_a_session_cannot_be_changed(tmp_path):
    session = tcprof.Session.from_dict(synthetic_session())
    with pytest.raises(dataclasses.FrozenInstanceError):
        session.status = "completed"  # type: ignore[misc]
    with pytest.raises(TypeError):
        session.config["steps"] = 1  # type: ignore[index]
    with pytest.raises(TypeError):
        session.row("eager", 8).data["median_ms"] = 0.0  # type: ignore[index]
    copy_ = session.to_dict()
    copy_["arms"].clear()
    assert len(session.arms) == 2 and len(session.to_dict()["arms"]) == 2, "to_dict is a copy"
    assert thaw(session.data) == session.to_dict()


def test_asking_for_what_is_not_there_names_what_is():
    session = tcprof.Session.from_dict(synthetic_session())
    with pytest.raises(KeyError, match=r"no arm named 'inductor' in the session \(arms: eager, "):
        session.verdict("inductor", 8)
    with pytest.raises(KeyError, match=r"aot_eager has no row at batch size 32 \(it has: 8\)"):
        session.verdict("aot_eager", 32)


def test_load_refuses_what_is_not_a_session(tmp_path):
    with pytest.raises(ValueError, match="session file not found"):
        tcprof.load(tmp_path / "missing")
    (tmp_path / "x.json").write_text('{"no": "arms"}')
    with pytest.raises(ValueError, match="is not a tcprof session"):
        tcprof.load(tmp_path / "x.json")


def test_compare_is_the_commands_comparison_with_its_worse_flag(tmp_path):
    steps = [[1.0, 1.1, 1.05, 0.95], [1.02, 1.1, 1.04, 0.97]]
    doc = synthetic_session(rounds={0: steps, 1: steps})  # two rounds: intervals
    before = _saved(tmp_path, doc, "before")
    slower = copy.deepcopy(doc)
    slower["started_at"] += 100
    for arm in slower["arms"]:
        for row in arm["results"]:
            medians = [m * 3 for m in row["process_medians_ms"]]
            row.update(median_ms=row["median_ms"] * 3, process_medians_ms=medians)
    after = _saved(tmp_path, slower, "after")
    result = tcprof.compare(tcprof.load(after), before)  # either order: the newer is after
    text, expected = compare_saved(before, after)
    assert result.text == text == str(result)
    assert result.before == "before" and result.after == "after"
    assert result.worse is True and result.regressions == tuple(expected.regressions)
    assert result.rows[0].arm == "eager" and result.rows[0].time_direction == "worse"
    assert result.rows[0].time_change == pytest.approx(2.0)
    same = tcprof.compare(before, tcprof.load(before))
    assert same.worse is False and "nothing got worse beyond noise" in same.text


def test_compare_refuses_a_comparison_of_nothing_and_what_is_not_a_session(tmp_path):
    eager_only = synthetic_session()
    other = copy.deepcopy(eager_only)
    for arm in other["arms"]:
        arm["name"] += "-renamed"
    with pytest.raises(ValueError, match="nothing was compared"):
        tcprof.compare(tcprof.Session.from_dict(eager_only), tcprof.Session.from_dict(other))
    with pytest.raises(TypeError, match="not dict"):
        tcprof.compare(eager_only, other)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="session file not found"):
        tcprof.compare(tmp_path / "missing", tcprof.Session.from_dict(eager_only))


def test_a_session_renders_as_report_html_in_a_notebook():
    session = tcprof.Session.from_dict(synthetic_session())
    page = session._repr_html_()
    assert page.startswith("<iframe srcdoc=") and 'sandbox="allow-scripts"' in page
    inner = html.unescape(page.split('srcdoc="', 1)[1].split('" title=', 1)[0])
    assert "aot_eager has no interval yet" in inner
    assert 'id="chart-step-time"' in inner and "uPlot" in inner and "#0072B2" in inner
    assert CSP in inner, "report.html's offline policy: no request to any host"
    assert "aot_eager has no interval yet" in repr(session)


def test_a_rows_start_up_is_the_scripts_figure_the_other_views_show():
    """`Row.startup_s` reads session.json's `script.startup_s`, as the terminal, both reports
    and the window do; a model file's row has none."""
    doc = synthetic_session()
    scripted = _with_row(doc, "eager", script={"startup_s": 0.031})
    session = tcprof.Session.from_dict(scripted)
    assert session.row("eager", 8).startup_s == 0.031
    assert session.row("aot_eager", 8).startup_s is None
