"""Eager against compiled, operator by operator: the time each top operator moved."""

from __future__ import annotations

import pytest

from tcprof.profiler.model.session import SessionModel
from tcprof.profiler.report.html import esc
from tcprof.profiler.report.sections.top_ops import comparable, html_section, op_comparison


def profiled_session() -> dict:
    def result(bs, ops):
        top = [
            {"name": n, "calls": 1, "self_ms_per_step": ms, "total_ms_per_step": ms}
            for n, ms in ops
        ]
        return {
            "batch_size": bs,
            "status": "ok",
            "profile": {"path": None, "steps": 2, "top_ops": top},
        }

    return {
        "baseline": "eager",
        "config": {"batch_sizes": [8, 16]},
        "arms": [
            {"name": "eager", "backend": "eager", "results": [
                result(8, [("aten::addmm", 2.0), ("aten::relu", 0.5)]), result(16, [("aten::addmm", 4.0)])]},
            {"name": "inductor", "backend": "inductor", "results": [
                result(8, [("aten::addmm", 1.5), ("triton_poi_fused_relu_0", 0.1)])]},
        ],
    }  # fmt: skip


def test_top_operators_side_by_side_with_the_time_moved():
    session = profiled_session()
    assert comparable(SessionModel.read(session)) == [("inductor", 8)], (
        "bs 16 has no compiled profile"
    )
    rows = op_comparison(SessionModel.read(session), "inductor", 8)
    assert [r["name"] for r in rows] == ["aten::addmm", "aten::relu", "triton_poi_fused_relu_0"]
    addmm, relu, fused = rows
    assert relu == {"name": "aten::relu", "eager_ms": 0.5, "compiled_ms": None, "moved_ms": -0.5}
    assert addmm["moved_ms"] == pytest.approx(-0.5) and fused["eager_ms"] is None
    html = html_section(SessionModel.read(session), esc)
    assert "eager against inductor · bs 8" in html and "\u22120.500" in html


def test_no_baseline_profile_nothing_to_compare():
    session = profiled_session()
    session["baseline"] = "missing"
    assert comparable(SessionModel.read(session)) == []
    assert op_comparison(SessionModel.read(session), "inductor", 8)[0]["eager_ms"] is None
