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
    session_verdicts,
    speedup_tone,
)
from tcprof.profiler.cli.summary import render_summary
from tcprof.profiler.config import ArmSpec
from tcprof.profiler.report.table import COLUMN_HELP, table_rows
from tests.support.synthetic import synthetic_session


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
    (verdict,) = session_verdicts(session)
    return verdict.text, verdict.tone


def test_a_faster_arm_reads_as_one_sentence():
    text, tone = _only(_session(_row(8, **FASTER)))
    assert text == (
        "inductor is 1.21× faster at bs 8 [1.17–1.28], pays back its 32 s compile after "
        "14,100 steps, uses 14% more memory, accuracy pass"
    )
    assert tone == GOOD


def test_slower_noise_fell_back_and_failed_say_so():
    slower = _row(8, speedup=0.8, speedup_ci=[0.75, 0.85], verdict="slower", compile_s=2.0)
    text, tone = _only(_session(slower))
    assert text.startswith("inductor is slower at bs 8 (0.80× [0.75–0.85])")
    assert "never pays back its 2.0 s compile" in text
    assert tone == BAD
    noise = _row(8, speedup=1.01, speedup_ci=[0.95, 1.06], verdict="no_difference")
    text, tone = _only(_session(noise))
    assert text.startswith("inductor shows no difference beyond noise at bs 8")
    assert tone == NEUTRAL
    fell = _row(16, fell_back=True, speedup=1.0, speedup_ci=[0.9, 1.1], verdict="no_difference")
    text, tone = _only(_session(_row(8, **FASTER), fell))
    assert "1.21× faster at bs 8" in text and "fell back to eager at bs 16" in text
    failed = _row(32, status="oom", error={"kind": "oom", "message": "CUDA out of memory"})
    text, tone = _only(_session(_row(8, **FASTER), failed))
    assert "failed at bs 32: CUDA out of memory" in text and tone == BAD
    text, tone = _only(_session(arm_error={"kind": "compile", "message": "boom"}))
    assert text == "inductor failed: boom" and tone == BAD


def test_several_sizes_are_summarised_in_one_line_and_partial_runs_say_so():
    rows = [
        _row(8, **FASTER),
        _row(16, **{**FASTER, "speedup": 1.4, "speedup_ci": [1.3, 1.5]}),
    ]
    text, _tone = _only(_session(*rows, status="stopped"))
    assert "1.21×–1.40× faster at bs 8, 16 (1.40× at bs 16 [1.30–1.50])" in text
    assert "partial" in text
    assert len(session_verdicts(_session(*rows))) == 1, "the baseline has no verdict"


def test_memory_reads_as_a_signed_change_with_the_direction_spelled_out():
    more, less = {"memory_ratio": 1 / 1.14}, {"memory_ratio": 1 / 0.92}
    assert fmt_memory(more) == "+14%" and fmt_memory(less) == "−8%"
    assert fmt_memory({}) == "-" and fmt_memory({"memory_ratio": float("nan")}) == "-"
    assert memory_title(more, "eager").startswith("uses 14% more memory than eager")
    assert memory_title(less, "eager").startswith("uses 8% less memory than eager")


def test_speedups_are_coloured_by_their_interval():
    assert speedup_tone({"speedup_ci": [1.1, 1.3]}) == GOOD
    assert speedup_tone({"speedup_ci": [0.7, 0.9]}) == BAD
    assert speedup_tone({"speedup_ci": [0.9, 1.1]}) == NEUTRAL
    assert speedup_tone({}) == NEUTRAL


def test_summary_rows_are_grouped_by_batch_size_and_every_column_is_explained():
    session = synthetic_session(arms=(ArmSpec("eager"), ArmSpec("aot_eager")), batch_sizes=(16, 8))
    header, rows = table_rows(session)
    assert [(r[0], r[1]) for r in rows] == [
        ("eager", "16"),
        ("aot_eager", "16"),
        ("eager", "8"),
        ("aot_eager", "8"),
    ]
    assert set(header) <= set(COLUMN_HELP), set(header) - set(COLUMN_HELP)
    assert "memory" in header and "mem ratio" not in header


def test_tcprof_run_prints_the_verdict_under_the_table():
    session = _session(_row(8, **FASTER))
    text = render_summary(session)
    assert "verdict:\n  inductor is 1.21× faster at bs 8" in text
