"""report.md: a GitHub table that parses, with pipes and markup in cells escaped."""

from __future__ import annotations

import re

from tcprof.profiler.config import ArmSpec
from tcprof.profiler.model.session import SessionModel
from tcprof.profiler.report.markdown import md_code, md_text, render_markdown
from tcprof.profiler.report.sections.table import table_rows
from tests.support.synthetic import synthetic_session


def table_lines(md: str) -> list[str]:
    """The summary table's lines: the report's first table (each compile's list follows)."""
    lines = md.splitlines()
    start = next((i for i, line in enumerate(lines) if line.startswith("|")), len(lines))
    end = next((i for i in range(start, len(lines)) if not lines[i].startswith("|")), len(lines))
    return lines[start:end]


def cells(line: str) -> list[str]:
    """Split a table row on pipes that are not escaped."""
    inner = line.strip()[1:-1]
    return [c.strip() for c in re.split(r"(?<!\\)\|", inner)]


def assert_table_parses(md: str, rows: int) -> None:
    lines = table_lines(md)
    assert len(lines) == 2 + rows
    widths = {len(cells(line)) for line in lines}
    assert widths == {len(table_rows(SessionModel.read({"arms": []}))[0])}, widths
    assert all(re.fullmatch(r"-{3}|-{3}:", c) for c in cells(lines[1]))


def test_real_markdown_table_parses(real_run):
    data, _ = real_run
    md = render_markdown(SessionModel.read(data))
    assert_table_parses(md, rows=4)
    assert md.startswith("### torch.compile profile: SimpleModel() from simple.py")
    assert "torch " in md and "measured with tcprof" in md


def test_pipes_and_markup_in_cells_are_escaped():
    data = synthetic_session(
        arms=(ArmSpec("eager"), ArmSpec("aot_eager", label="a|b *c* <x>")),
        reason="left | right `tick`",
        batch_sizes=(8, 16),
    )
    md = render_markdown(SessionModel.read(data))
    assert_table_parses(md, rows=4)
    assert "a\\|b \\*c\\* \\<x\\>" in md
    assert "<x>" not in md
    assert "left \\| right \\`tick\\`" in md


def test_md_helpers():
    assert md_text("a\nb|c") == "a b\\|c"
    assert md_text("aot_eager _x_") == "aot_eager \\_x\\_"
    assert md_code("a`b") == "``a`b``"


def test_errors_and_interrupted_status_are_stated():
    data = synthetic_session(
        error={"kind": "compile", "message": "backend | failed", "traceback": "tb",
               "file": None, "line": None, "batch_size": 8, "fatal": True},
    )  # fmt: skip
    data["status"] = "interrupted"
    md = render_markdown(SessionModel.read(data))
    assert "**Run interrupted**" in md
    assert "compile error: backend \\| failed" in md
