"""Every figure names what it is and agrees with the others (issue 20): memory says which
memory, small sizes keep their precision, a profile that does not describe the measured step is
flagged and not read as savings, the steps shown are the steps measured, the tolerance shown is
the one used."""

from __future__ import annotations

from tcprof.profiler.analysis.profile_check import profile_mismatch
from tcprof.profiler.analysis.verdict import memory_title, memory_words
from tcprof.profiler.model.profile import Profile
from tcprof.profiler.model.row import Row
from tcprof.profiler.model.session import SessionModel
from tcprof.profiler.protocol import units
from tcprof.profiler.report.html import esc
from tcprof.profiler.report.sections.configuration import configuration
from tcprof.profiler.report.sections.method import steps_text, tolerance_text
from tcprof.profiler.report.sections.table import table_rows
from tcprof.profiler.report.sections.top_ops import comparison_problem, html_section
from tests.support.typed import row_of


def test_small_memory_keeps_its_precision_and_its_unit():
    assert units.megabytes(0.0) == "0 B"
    assert units.megabytes(44 / 1024 / 1024) == "44 B"  # an 11-parameter model's tensors
    assert units.megabytes(0.5) == "512 KB"
    assert units.megabytes(0.0013) == "1.33 KB"
    assert units.megabytes(3.251) == "3.25 MB"
    assert units.megabytes(1204.4) == "1,204 MB"
    assert units.megabytes(None) == "-"


def test_the_verdict_names_tensor_memory_and_the_rss_the_plot_shows():
    # the same tensors, but the compiled process holds 20% more RSS (the compiler)
    row = {"memory_ratio": 1.0, "rss_ratio": 302 / 361, "peak_rss_mb": 361.0}
    words = memory_words(row) or ""
    assert words.startswith("uses the same tensor memory")
    assert "20% more peak RSS" in words and "compiler" in words
    assert "uses the same memory" not in words
    typed = Row.of("inductor", {**row, "batch_size": 8, "compile_peak_mb": 447.0}, False)
    title = memory_title(typed, "eager")
    assert "process peak RSS: 361 MB" in title and "compiling (first step): 447 MB" in title
    # where RSS tells the same story, it is not repeated
    assert memory_words({"memory_ratio": 1 / 1.14, "rss_ratio": 1 / 1.15}) == (
        "uses 14% more tensor memory"
    )


def _session(profile_eager, profile_compiled, median=9.17):
    def row(profile):
        return {
            "batch_size": 8,
            "status": "ok",
            "median_ms": median,
            "profile": profile,
            "steps_per_process": [5744, 8292],
        }

    return {
        "baseline": "eager",
        "config": {"steps": 50, "blocks": 5, "warmup": 5, "min_block_ms": 100.0},
        "arms": [
            {"name": "eager", "backend": "eager", "results": [row(profile_eager)]},
            {"name": "inductor", "backend": "inductor", "results": [row(profile_compiled)]},
        ],
    }


def test_a_profile_far_from_the_measured_step_is_flagged_and_saves_nothing():
    busy = {
        "steps": 5,
        "step_ms": 230.0,
        "quiet": False,
        "top_ops": [{"name": "aten::mm", "self_ms_per_step": 218.25}],
    }
    mismatch = profile_mismatch(Profile.of(busy), 9.17)
    assert mismatch and "230 ms" in mismatch and "9.17 ms" in mismatch
    assert "busy" in mismatch
    fine = {**busy, "step_ms": 9.5, "quiet": True, "top_ops": [{"self_ms_per_step": 4.0}]}
    assert profile_mismatch(Profile.of(fine), 9.17) is None
    # its operators cannot take longer than its own steps
    assert "exceeds its own step" in (
        profile_mismatch(Profile.of({**fine, "top_ops": [{"self_ms_per_step": 20.0}]}), 9.17) or ""
    )
    # a session saved before profiles timed their steps is not judged
    assert profile_mismatch(Profile.of({"steps": 5, "top_ops": []}), 9.17) is None
    compiled = {**fine, "top_ops": [{"name": "aten::mm", "self_ms_per_step": 1.6}]}
    session = _session({**busy, "mismatch": mismatch}, compiled)
    assert "not savings" in (comparison_problem(SessionModel.read(session), "inductor", 8) or "")
    html = html_section(SessionModel.read(session), esc)
    assert "not savings" in html and 'class="num good"' not in html
    assert comparison_problem(SessionModel.read(_session(fine, compiled)), "inductor", 8) is None
    assert 'class="num good"' in html_section(SessionModel.read(_session(fine, compiled)), esc)


def test_the_steps_shown_are_the_steps_measured_and_why_a_block_grew():
    session = _session(None, None)
    text = steps_text(SessionModel.read(session))
    assert "50 measured asked per process (5 blocks of about 10)" in text
    assert "measured 5,744–8,292 per process" in text and "at least 100 ms" in text
    assert "5,744" in configuration(SessionModel.read(session), esc)


def test_the_tolerance_shown_is_the_one_the_check_used():
    session = _session(None, None)
    session["config"].update(accuracy_rtol=None, accuracy_atol=None)
    session["arms"][1]["results"][0]["accuracy"] = {"status": "pass", "rtol": 1e-4, "atol": 1e-5}
    assert (
        tolerance_text(SessionModel.read(session))
        == "rtol 0.0001, atol 1e-05 (the dtype's default)"
    )
    assert "rtol=None" not in configuration(SessionModel.read(session), esc)
    assert "rtol 0.0001" in configuration(SessionModel.read(session), esc)
    session["config"].update(accuracy_rtol=0.01, accuracy_atol=0.001)
    assert tolerance_text(SessionModel.read(session)) == "rtol 0.01, atol 0.001"


def test_the_summary_column_names_tensor_memory_with_units():
    session = _session(None, None)
    for arm in session["arms"]:
        arm["results"][0]["steady_peak_mb"] = 44 / 1024 / 1024
    header, rows = table_rows(SessionModel.read(session))
    assert "tensor peak" in header and "train MB" not in header
    assert rows[0][header.index("tensor peak")] == "44 B"


def test_a_single_round_interval_says_there_is_none_yet():
    from tcprof.profiler.analysis.verdict import arm_verdict
    from tcprof.profiler.model.arm import Arm
    from tcprof.profiler.report.sections.cells import fmt_speedup

    row = {
        "batch_size": 8,
        "status": "ok",
        "speedup": 0.42,
        "speedup_ci": [0.42, 0.42],
        "interval_covers_processes": False,
        "verdict": "slower",
    }
    assert fmt_speedup(row_of(row)) == "not settled (one round)"
    text = arm_verdict(Arm.of({"name": "inductor", "results": [row]}, False, None), False).text
    assert "one round" in text and "[0.42–0.42]" not in text
    assert "slower" not in text, "a session saved with a one-round 'slower' says no such thing"
    two = {**row, "interval_covers_processes": True, "speedup_ci": [0.40, 0.44]}
    assert fmt_speedup(row_of(two)) == "0.42× [0.40-0.44]"


def test_the_terminal_shows_the_steps_measured_too():
    from tcprof.profiler.cli.summary import render_summary

    assert "measured 5,744–8,292 per process" in render_summary(
        SessionModel.read(_session(None, None))
    )


def test_recompile_reasons_in_every_table_are_in_the_users_words():
    from tcprof.profiler.cli.summary import render_insight
    from tcprof.profiler.model.session import SessionModel

    record = {
        "batch_size": 16,
        "frame": "forward",
        "reason": "tensor 'L['x']' size mismatch at index 0. expected 8, actual 16",
        "seconds": 1.0,
        "step": 0,
    }
    arm = {"name": "inductor", "backend": "inductor", "results": [], "recompiles": [record]}
    eager = {"name": "eager", "backend": "eager", "results": []}
    text = render_insight(SessionModel.from_json({"arms": [eager, arm]}))
    assert "tensor 'x' size mismatch" in text and "L['" not in text
