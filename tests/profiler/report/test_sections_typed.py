"""report/sections read the typed session model: each section says the same given the model as
given session.json's dict (the door callers still on dicts use), a script's own figures and its
arms' notes are typed records, the rounds' seeding is one, and the plain tables of the regional,
ranks and script sections are written by one helper."""

from __future__ import annotations

import pytest

from tcprof.profiler.model.session import SessionModel
from tcprof.profiler.report.html import esc
from tcprof.profiler.report.sections import (
    configuration,
    insight,
    method,
    page_end,
    run_output,
    script,
    seeding,
    summary,
    table,
    top_ops,
)
from tcprof.profiler.report.sections import regional as regional_section
from tcprof.profiler.report.sections.html_table import table_html, table_markdown
from tests.support.script_sessions import script_session
from tests.support.synthetic import synthetic_session

pytestmark = pytest.mark.timeout(60)


SECTIONS = [
    summary.summary,
    summary.summary_body,
    summary.verdict_list,
    insight.insight,
    run_output.errors,
    configuration.configuration,
    configuration.environment,
    run_output.logs,
    page_end.footer,
    top_ops.html_section,
    script.html_section,
]


@pytest.mark.parametrize("session", [synthetic_session(), script_session()])
def test_each_section_says_the_same_from_the_model_as_from_the_dict(session):
    model = SessionModel.from_json(session)
    for section in SECTIONS:
        assert section(model, esc) == section(SessionModel.from_json(session), esc), (
            section.__name__
        )
    assert table.table_rows(SessionModel.read(model)) == table.table_rows(
        SessionModel.read(session)
    )
    assert method.method_notes(SessionModel.read(model)) == method.method_notes(
        SessionModel.read(session)
    )
    assert script.text_lines(model, table.render_table) == script.text_lines(
        SessionModel.from_json(session), table.render_table
    )


def test_a_scripts_figures_and_notes_are_typed_records():
    model = SessionModel.from_json(script_session())
    fig = model.arm("aot_eager").row(8).script
    assert fig is not None and fig.data_bound and fig.own_share == pytest.approx(0.6)
    assert fig.per_step("tokens") == 2048 and fig.per_step("steps") == 1.0
    assert fig.loss_curve[2] == (2, None)
    acc = model.arm("aot_eager").row(8).accuracy
    assert acc is not None and acc.parity and acc.eager_curve[2] is None
    arm = model.arm("eager").script
    assert arm is not None and arm.files[0].size == 1234 and arm.notes[0].kind == "model"
    source = script.script_of(SessionModel.read(model))
    assert source is not None and source.sweep == "batch_size"
    assert script.command_text(source, 8) == "python /w/train.py --bs=8"
    # a model file's session has none of them
    plain = SessionModel.from_json(synthetic_session())
    assert plain.rows[0].script is None and plain.arms[0].script is None
    assert script.script_of(SessionModel.read(plain)) is None


def test_the_script_section_reads_its_figures_from_the_model():
    model = SessionModel.from_json(script_session())
    assert script.split_rows(SessionModel.read(model)) == [
        ["eager", "batch_size=8", "10.00", "2.00", "12.00", "17%", "1.25"],
        ["aot_eager", "batch_size=8", "4.00", "6.00", "10.00", "60% (data-bound)", "1.25"],
    ]
    assert script.notes(model) == ["eager: the model is Net", "aot_eager: compiled in place"]
    assert script.files(model) == ["/w/out/ckpt.pt (1,234 bytes)"]
    assert script.data_bound(SessionModel.read(model)) == [
        "aot_eager at batch_size=8: the script's own time is 60% of its step (data-bound: "
        "compiling speeds up only the rest)"
    ]
    labels = [label for label, _phase, _curve in script.curves(SessionModel.read(model))]
    assert labels == ["eager", "aot_eager", "eager (parity run)", "aot_eager (parity run)"]
    assert "(rtol 0.01" not in (script.accuracy_note(SessionModel.read(model)) or "")
    assert "<= 0.001 + 0.01 x" in (script.accuracy_note(SessionModel.read(model)) or "")


def test_a_loss_curve_with_a_step_of_no_loss_still_makes_report_md():
    """A step the script logged no finite loss for (None in session.json, or NaN) is a blank
    cell of report.md's loss table; it raised a TypeError before."""
    session = script_session()
    session["arms"][1]["results"][0]["script"]["loss_curve"][1] = [1, float("nan")]
    lines = script.markdown_lines(SessionModel.from_json(session), str)
    table = lines[lines.index("| curve | phase | 0 | 1 | 2 | 3 |") + 2 :]
    assert table[:4] == [
        "| eager | batch_size=8 | 2.1 | 1.6 |  | 1.1 |",
        "| aot_eager | batch_size=8 | 2.1 |  |  | 1.1 |",
        "| eager (parity run) | batch_size=8 | 2 | 1.5 |  | 1 |",
        "| aot_eager (parity run) | batch_size=8 | 2 | 1.5 | 1.2 | 1 |",
    ]


def test_the_rounds_seeding_is_a_typed_record():
    session = synthetic_session()
    assert SessionModel.from_json(session).seeding is None  # saved before rounds had seeds
    session["seeding"] = {"per_round": True, "accuracy_seed": 7, "wait_max_s": 0.02}
    session["rounds"] = [{"block_wait_s": 0.5}, {"block_wait_s": 0.25}, "not a round"]
    typed = SessionModel.from_json(session).seeding
    assert typed is not None and typed.per_round and typed.accuracy_seed == 7
    assert typed.waited_s == pytest.approx(0.75) and typed.script_own_seed is None
    assert "(0.75 s in all)" in seeding.seeding_notes(SessionModel.read(session))[0]


def test_one_helper_writes_the_plain_tables():
    cells = [["<a>", "1"], ["b", "2"]]
    written = table_html(["name", "n"], cells, esc)
    assert written.startswith('<div class="table-wrap"><table><thead><tr><th>name</th>')
    assert "<td>&lt;a&gt;</td>" in written
    assert table_markdown(["name", "n"], cells, str) == [
        "| name | n |",
        "|---|---|",
        "| <a> | 1 |",
        "| b | 2 |",
    ]
    session = synthetic_session()
    session["regional"] = [
        {"regional": "inductor (regional)", "whole": "inductor", "batch_size": 8}
    ]
    model = SessionModel.read(session)
    found = regional_section.rows(model)
    expected = table_html(regional_section.HEADER, map(regional_section.cells, found), esc)
    assert expected in regional_section.html_section(model, esc)


def test_the_compile_lists_checks_are_typed_records():
    session = synthetic_session()
    arm = session["arms"][1]
    arm["model"] = {**(arm.get("model") or {}), "cpu_check": {"first_s": 9.8, "built": True}}
    arm["cudagraph_skips"] = [{"batch_size": 8, "reason": "cpu device"}, {"batch_size": None}]
    arm["results"][0]["compile_check"] = {"events_s": 1.02, "excess_s": 1.05, "residual_s": 0.03}
    typed = SessionModel.from_json(session).arms[1]
    assert typed.cpu_check is not None and typed.cpu_check.built and typed.cpu_check.error is None
    assert typed.cudagraph_skipped == (8,)
    check = typed.rows[0].compile_check
    assert check is not None and (check.events_s, check.excess_s) == (1.02, 1.05)
    older = synthetic_session()
    older["arms"][1]["results"][0].pop("compile_check", None)  # saved before the check
    old = SessionModel.from_json(older).arms[1]
    assert old.cpu_check is None and old.cudagraph_skipped == ()
    assert old.rows[0].compile_check is None


def test_the_parity_note_says_which_run_was_judged():
    """Since the parity's compiled run is judged as it is first, the note says so, and how many
    checks ran again with fallback_random; an older session's note keeps its wording."""
    raw = script_session()
    rows = [row for arm in raw["arms"] for row in arm["results"] if row.get("accuracy")]
    older = script.accuracy_note(SessionModel.read(SessionModel.from_json(raw))) or ""
    assert "and the arm with inductor's fallback_random, in a process" in older
    for row in rows:
        row["accuracy"]["fallback_random"] = False
    rows[-1]["accuracy"]["fallback_random"] = True
    note = script.accuracy_note(SessionModel.read(SessionModel.from_json(raw))) or ""
    assert f"1 of {len(rows)} check(s)" in note and "the arm as it is" in note
