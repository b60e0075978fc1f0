"""The verdict sentence, the shared colouring rule, memory in words and the Summary grouped by
batch size, from session dicts (no worker)."""

from __future__ import annotations

from typing import Any

from tcprof.profiler.analysis.verdict import (
    BAD,
    GOOD,
    NEUTRAL,
    fmt_memory,
    memory_title,
    session_notes,
    session_verdicts,
    speedup_tone,
)
from tcprof.profiler.cli.summary import render_summary
from tcprof.profiler.config import ArmSpec
from tcprof.profiler.model.row import Row
from tcprof.profiler.model.session import SessionModel
from tcprof.profiler.report.sections.columns import COLUMN_HELP, column_key
from tcprof.profiler.report.sections.table import table_rows
from tests.support.synthetic import synthetic_session
from tests.support.typed import row_of


def _row(bs: int, **fields: Any) -> dict[str, Any]:
    return {"batch_size": bs, "status": "ok", "median_ms": 10.0, **fields}


def _session(*rows: dict[str, Any], status: str = "completed", arm_error=None) -> dict:
    return {
        "status": status,
        "baseline": "eager",
        "config": {"batch_sizes": sorted({r["batch_size"] for r in rows})},
        "arms": [
            {"name": "eager", "backend": "eager", "results": [_row(r["batch_size"]) for r in rows]},
            {"name": "inductor", "backend": "inductor", "results": list(rows), "error": arm_error},
        ],
    }


FASTER = {
    "speedup": 1.21,
    "speedup_ci": [1.17, 1.28],
    "verdict": "faster",
    "compile_cold_s": 32.0,
    "break_even_cold_steps": 14100.0,
    "memory_ratio": 1 / 1.14,
    "accuracy": {"status": "pass"},
}


def _only(session: dict) -> tuple[str, str]:
    (verdict,) = session_verdicts(SessionModel.read(session))
    return verdict.text, verdict.tone


def test_break_even_carries_its_interval():
    row = _row(8, **{**FASTER, "break_even_cold_ci": [9_800.0, 25_000.0]})
    text, _tone = _only(_session(row))
    assert "pays back its 32.00 s compile after 14,100 steps [9,800–25,000]" in text


def test_a_nondeterministic_model_is_not_blamed_on_the_compiler():
    row = _row(8, **{**FASTER, "accuracy": {"status": "nondeterministic"}})
    text, tone = _only(_session(row))
    assert "accuracy not judged at bs 8: two eager runs differ" in text
    assert "accuracy fail" not in text and tone == GOOD


def test_controls_have_no_verdict_and_a_flagged_one_warns():
    session = _session(_row(8, **FASTER))
    session["arms"].append(
        {
            "name": "inductor-control",
            "backend": "inductor",
            "results": [
                _row(
                    8,
                    **FASTER,
                    aa_of="inductor",
                    aa_speedup=1.04,
                    aa_ci=[1.01, 1.07],
                    aa_flagged=True,
                )
            ],
        }
    )
    session["comparisons"] = {
        "count": 3,
        "tested": 3,
        "level": 0.95,
        "family_alpha": 0.05,
        "differences": 2,
        "hold": 1,
    }
    session["schedule"] = {"note": "the arms' order is not balanced: 2 round(s) for 3 arms"}
    assert [v.arm for v in session_verdicts(SessionModel.read(session))] == ["inductor"]
    notes = session_notes(SessionModel.read(session))
    assert notes[0] == (
        "3 comparisons, each a 95% interval (saved before simultaneous intervals); "
        "2 differences, 1 hold after Holm's adjustment (family-wise 5%)"
    )
    assert notes[1].startswith(
        "the harness itself differs by +4% [1%–7%] between identical arms "
        "(inductor-control against inductor, bs 8): treat differences below that with care"
    )
    assert notes[2].startswith("the arms' order is not balanced")
    summary = render_summary(SessionModel.read({**session, "environment": {}}))
    assert all(n in summary for n in notes), "tcprof run prints them beside the verdict"


def test_a_faster_arm_reads_as_one_sentence():
    text, tone = _only(_session(_row(8, **FASTER)))
    assert text == (
        "inductor is 1.21× faster at bs 8 [1.17–1.28], pays back its 32.00 s compile after "
        "14,100 steps, uses 14% more tensor memory, accuracy pass"
    )
    assert tone == GOOD


def test_slower_noise_fell_back_and_failed_say_so():
    slower = _row(8, speedup=0.8, speedup_ci=[0.75, 0.85], verdict="slower", compile_s=2.0)
    text, tone = _only(_session(slower))
    assert text.startswith("inductor is slower at bs 8 (0.80× [0.75–0.85])")
    assert "never pays back its 2.00 s compile" in text
    assert tone == BAD
    noise = _row(
        8,
        speedup=1.01,
        speedup_ci=[0.95, 1.06],
        verdict="no_difference",
        compile_cold_s=3.0,
        break_even_cold_steps=30_000.0,
        break_even_cold_ci=[5_000.0, None],
    )
    text, tone = _only(_session(noise))
    assert text.startswith("inductor shows no difference beyond noise at bs 8")
    assert "does not pay back its 3.00 s compile within noise" in text and "30,000" not in text
    assert tone == NEUTRAL
    fell = _row(16, fell_back=True, speedup=1.0, speedup_ci=[0.9, 1.1], verdict="no_difference")
    text, tone = _only(_session(_row(8, **FASTER), fell))
    assert "1.21× faster at bs 8" in text and "fell back to eager at bs 16" in text
    failed = _row(32, status="oom", error={"kind": "oom", "message": "CUDA out of memory"})
    text, tone = _only(_session(_row(8, **FASTER), failed))
    assert "failed at bs 32: CUDA out of memory" in text and tone == BAD
    text, tone = _only(_session(arm_error={"kind": "compile", "message": "boom"}))
    assert text == "inductor failed: boom" and tone == BAD


def test_a_failed_arm_says_why_in_full_and_never_that_its_compile_does_not_pay_back():
    """A script that ended after 10 optimizer steps of 31: its compile was timed, its speedup
    never; the cause is not cut mid-parenthesis."""
    message = (
        "the script ended after 10 optimizer steps; tcprof needs 31 (1 first + 10 warm-up + "
        "20 measured): give it more steps (--max-steps) or fewer (--steps)"
    )
    failed = _row(
        1, status="error", compile_cold_s=0.74, error={"kind": "script", "message": message}
    )
    text, tone = _only(_session(failed))
    assert text == f"inductor failed at bs 1: {message}" and tone == BAD
    assert "pays back" not in text


def test_several_sizes_are_summarised_in_one_line_and_partial_runs_say_so():
    rows = [
        _row(8, **FASTER),
        _row(16, **{**FASTER, "speedup": 1.4, "speedup_ci": [1.3, 1.5]}),
    ]
    text, _tone = _only(_session(*rows, status="stopped"))
    assert "1.21× faster at bs 8 [1.17–1.28] and 1.40× at bs 16 [1.30–1.50]" in text
    assert "after 14,100 steps at bs 8" in text, "the payback names the size it is of"
    assert "partial" in text
    many = [_row(bs, **{**FASTER, "speedup": 1.1 + bs / 1000}) for bs in (8, 16, 32, 64, 128)]
    text, _tone = _only(_session(*many))
    assert "1.11×–1.23× faster at bs 8, 16, 32, 64, 128" in text, "a range, never the best alone"
    assert len(session_verdicts(SessionModel.read(_session(*rows)))) == 1, (
        "the baseline has no verdict"
    )


def _typed(**fields: Any) -> Row:
    return Row.of("inductor", _row(8, **fields), False)


def test_memory_reads_as_a_signed_change_with_the_direction_spelled_out():
    more, less = _typed(memory_ratio=1 / 1.14), _typed(memory_ratio=1 / 0.92)
    assert fmt_memory(more) == "+14%" and fmt_memory(less) == "−8%"
    assert fmt_memory(_typed()) == "-" and fmt_memory(_typed(memory_ratio=float("nan"))) == "-"
    assert memory_title(more, "eager").startswith("uses 14% more tensor memory than eager")
    assert memory_title(less, "eager").startswith("uses 8% less tensor memory than eager")


def test_speedups_are_coloured_by_their_interval():
    assert speedup_tone(_typed(speedup=1.2, speedup_ci=[1.1, 1.3])) == GOOD
    assert speedup_tone(_typed(speedup=0.8, speedup_ci=[0.7, 0.9])) == BAD
    assert speedup_tone(_typed(speedup=1.0, speedup_ci=[0.9, 1.1])) == NEUTRAL
    assert speedup_tone(_typed()) == NEUTRAL
    unkept = _typed(
        speedup=0.5, speedup_ci=[0.31, 0.70], verdict="slower", holds_after_adjustment=False
    )
    assert speedup_tone(unkept) == NEUTRAL, "Holm does not keep it: not coloured as a loss"


def test_summary_rows_are_grouped_by_batch_size_and_every_column_is_explained():
    session = synthetic_session(arms=(ArmSpec("eager"), ArmSpec("aot_eager")), batch_sizes=(16, 8))
    header, rows = table_rows(SessionModel.read(session))
    assert [(r[0], r[1]) for r in rows] == [
        ("eager", "16"),
        ("aot_eager", "16"),
        ("eager", "8"),
        ("aot_eager", "8"),
    ]
    keys = {column_key(h) for h in header}  # the speedup's header states its level
    assert keys <= set(COLUMN_HELP), keys - set(COLUMN_HELP)
    assert "memory" in header and "mem ratio" not in header


def test_tcprof_run_prints_the_verdict_under_the_table():
    session = _session(_row(8, **FASTER))
    text = render_summary(SessionModel.read(session))
    assert "verdict:\n  inductor is 1.21× faster at bs 8" in text


def test_a_difference_holm_does_not_keep_is_said_so_and_not_coloured_as_a_win():
    """The sentence says what the table says beside the same figure: a faster (or slower) verdict
    that the run's family-wise adjustment does not keep is named, and its tone stays neutral."""
    kept, _ = _only(_session(_row(8, **FASTER, holds_after_adjustment=True)))
    assert "(not after Holm)" not in kept
    row = _row(8, **FASTER, holds_after_adjustment=False)
    text, tone = _only(_session(row))
    assert "1.21× faster at bs 8 [1.17–1.28] (not after Holm)" in text
    assert tone == NEUTRAL
    header, cells = table_rows(SessionModel.read(_session(row)))
    (table_row,) = [r for r in cells if r[0] == "inductor"]
    assert table_row[header.index("verdict")] == "faster (not after Holm)"
    slower = {**FASTER, "speedup": 0.8, "speedup_ci": [0.7, 0.9], "verdict": "slower"}
    text, tone = _only(_session(_row(8, **slower, holds_after_adjustment=False)))
    assert "(not after Holm)" in text and tone == NEUTRAL


def test_an_interval_past_two_decimals_reads_as_a_bound_not_a_figure():
    from tcprof.profiler.analysis.verdict import bound_text
    from tcprof.profiler.report.sections.cells import fmt_speedup

    assert [bound_text(b) for b in (0.0003, 0.01, 1.234, 100.0, 26577.2)] == [
        "<0.01",
        "0.01",
        "1.23",
        "100.00",
        ">100",
    ]
    row = {"speedup": 2.9, "speedup_ci": [0.0003, 26577.2], "interval_covers_processes": True}
    assert fmt_speedup(row_of(row)) == "not settled [<0.01->100]", "too wide to quote its centre"
