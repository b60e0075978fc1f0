"""report.md, report.html and the terminal list each compile with when and where it ran, the
parts add up to the compile cost (its total row), the first step's part beyond compiling is
named, and the verdict quotes the full cost break-even is computed from."""

from __future__ import annotations

import re

import pytest

from tcprof.profiler.analysis.verdict import verdict_lines
from tcprof.profiler.model.session import SessionModel
from tcprof.profiler.report.html import render_html
from tcprof.profiler.report.markdown import render_markdown
from tcprof.profiler.report.sections import compile_list
from tests.support.synthetic import EVAL_FIRST_COMPILES, eval_first_session

WHENS = ["before training", "in the first step", "in an evaluation after 4 steps"]
TRUTH = sum((c.get("seconds") or 0) + (c.get("backward_s") or 0) for c in EVAL_FIRST_COMPILES)


@pytest.fixture(scope="module")
def session():
    return eval_first_session()


def _md_rows(md: str) -> list[list[str]]:
    start = md.index("_Each compile at bs 8_")
    lines = [line for line in md[start:].splitlines() if line.startswith("|")]
    return [[c.strip() for c in line.strip("|").split("|")] for line in lines[2:]]


def test_report_md_lists_each_compile_and_the_parts_add_up(session):
    md = render_markdown(SessionModel.read(session))
    assert "**Compile time: aot_eager**" in md
    rows = _md_rows(md)
    assert [r[0] for r in rows] == [
        *WHENS,
        "total: the compile cost",
        "first step beyond compiling",
    ]
    assert rows[0][1] == "eval_first.py:30 under no_grad, shapes (16, 8)"
    assert rows[2][1] == "eval_first.py:30 under no_grad, shapes (5, 8)"
    parts = [float(r[3]) for r in rows[:3]]
    assert sum(parts) == pytest.approx(float(rows[3][3])) == pytest.approx(TRUTH)
    assert session["arms"][1]["results"][0]["compile_cold_s"] == pytest.approx(TRUTH)
    assert rows[4][3] == "0.20"
    assert "1 compile ran before training (an evaluation at eval_first.py:30), counted" in md
    assert "residual 0.20 s" in md
    assert rows[4][1] == "lazy initialisation" and "CUDA graph" not in md  # a CPU run


def test_report_html_lists_each_compile_and_the_parts_add_up(session):
    page = render_html(SessionModel.read(session))
    section = page[page.index('<section id="insight">') :]
    section = section[: section.index("</section>")]
    assert "Each compile at bs 8" in section
    cells = re.findall(r"<tr[^>]*><td>([^<]*)</td><td class=\"mono\">([^<]*)</td>"
                       r"<td class=\"mono\">[^<]*</td><td class=\"num\">([^<]*)</td>", section)  # fmt: skip
    assert [c[0] for c in cells[:3]] == WHENS
    assert cells[0][1] == "eval_first.py:30 under no_grad, shapes (16, 8)"
    assert cells[3][0] == "total: the compile cost"
    assert sum(float(c[2]) for c in cells[:3]) == pytest.approx(float(cells[3][2]))
    assert float(cells[3][2]) == pytest.approx(TRUTH)
    assert cells[4][0] == "first step beyond compiling" and cells[4][2] == "0.20"
    assert "left out of start-up" in section
    assert "the first step&#x27;s excess over a steady step 1.20 s; residual 0.20 s" in section


def test_the_verdict_quotes_the_cost_break_even_is_computed_from(session):
    (line,) = verdict_lines(SessionModel.read(session))
    assert "its 4.00 s compile (and the 0.20 s its first step paid beyond compiling)" in line


def test_the_part_beyond_compiling_is_cuda_graph_recording_only_where_the_mode_records_them():
    saved = eval_first_session()["arms"][1]
    row = SessionModel.from_json(eval_first_session()).arms[1].rows[0]
    skip = {"batch_size": row.batch_size, "reason": "graph inputs hold no CUDA tensor"}
    for options, recorded in [
        ({"options": {}}, False),  # mode=default: no CUDA graphs
        ({"options": {"mode": "max-autotune-no-cudagraphs"}}, False),
        ({"options": {"mode": "reduce-overhead"}, "cudagraph_skips": [skip]}, False),  # a CPU run
        ({"options": {"mode": "reduce-overhead"}}, True),
        ({"options": {"mode": "max-autotune"}}, True),
    ]:
        arm = SessionModel.from_json(
            {"arms": [{"name": "eager", "backend": "eager"}, {**saved, **options}]}
        ).arms[1]
        extra = compile_list.rows(row, arm)[-1]
        case = compile_list.case_text(row, arm) or ""
        assert extra[0] == compile_list.EXTRA
        assert ("CUDA graph recording" in extra[1]) is recorded, arm
        assert ("CUDA graph recording" in case) is recorded, arm
        assert ("CUDA graph" in (compile_list.tips(row, arm)[-1] or "")) is recorded, arm
        assert "lazy initialisation" in extra[1] and "lazy initialisation" in case
