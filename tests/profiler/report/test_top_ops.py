"""The "Top operators (torch.profiler)" section of report.html and report.md."""

from __future__ import annotations

from tcprof.profiler.model.session import SessionModel
from tcprof.profiler.report.html import render_html
from tcprof.profiler.report.markdown import render_markdown


def _session(ops):
    result = {"batch_size": 8, "status": "ok", "median_ms": 1.0}
    if ops is not None:
        result["profile"] = {"path": "/s/torch-profiler-bs8.json", "steps": 3, "top_ops": ops}
    return {
        "status": "completed",
        "config": {"source": {"path": "m.py"}, "batch_sizes": [8]},
        "baseline": "eager",
        "arms": [{"index": 0, "name": "eager", "backend": "eager", "results": [result]}],
    }


OPS = [
    {"name": "aten::addmm", "calls": 3, "self_ms_per_step": 0.25, "total_ms_per_step": 0.3},
    {"name": "<script>alert(1)</script>", "calls": 1, "self_ms_per_step": 0.1,
     "total_ms_per_step": 0.1},
]  # fmt: skip


def test_top_operators_are_in_the_html_and_escaped():
    html = render_html(SessionModel.read(_session(OPS)))
    assert "Top operators (torch.profiler)" in html and 'href="#profile"' in html
    assert "aten::addmm" in html and "0.250" in html
    assert "<script>alert(1)" not in html
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in html


def test_top_operators_are_listed_in_markdown():
    md = render_markdown(SessionModel.read(_session(OPS)))
    assert "**Top operators (torch.profiler, self ms per step)**" in md
    assert "- **eager** bs=8: aten::addmm 0.250" in md
    assert "<script>" not in md


def test_no_profile_no_section():
    assert "Top operators" not in render_html(SessionModel.read(_session(None)))
    assert "Top operators" not in render_markdown(SessionModel.read(_session(None)))
