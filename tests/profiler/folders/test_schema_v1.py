"""Sessions of schema 1 (one process per arm, the old accuracy check) still open, report and
compare, marked as measured by the old method. The file was written by tcprof before schema 2
(`tcprof run --example simple --arms eager,aot_eager --batch-sizes 8,16`)."""

from __future__ import annotations

import json
import subprocess
import sys

from tcprof.profiler.cli.summary import render_summary
from tcprof.profiler.model.session import SessionModel
from tcprof.profiler.report.compare import compare_sessions, method_note
from tcprof.profiler.report.html import render_html
from tcprof.profiler.report.markdown import render_markdown
from tcprof.profiler.report.sections.table import table_rows
from tests.support.paths import DATA
from tests.support.synthetic import synthetic_session

V1 = DATA / "session_v1.json"


def _v1() -> dict:
    data = json.loads(V1.read_text())
    assert data["schema_version"] == 1
    return data


def test_a_schema_1_session_reports_as_measured_by_the_old_method():
    data = _v1()
    assert "measured by the old method" in render_summary(SessionModel.read(data))
    assert "measured by the old method" in render_markdown(SessionModel.read(data)).lower()
    assert "measured by the old method" in render_html(SessionModel.read(data)).lower()
    header, rows = table_rows(SessionModel.read(data))
    (row,) = [dict(zip(header, r, strict=True)) for r in rows if r[:2] == ["aot_eager", "8"]]
    old = data["arms"][1]["results"][0]
    assert row["compile s cold/warm"] == f"{old['compile_s']:.2f}"
    assert row["tensor peak"] != "-", "schema 1 shows its peak memory"
    assert row["accuracy"] == old["accuracy"]["status"]
    assert row["verdict"] == "-"


def test_compare_a_schema_1_session_with_a_schema_2_one_says_the_methods_differ():
    old, new = _v1(), synthetic_session(path=_v1()["config"]["source"]["path"])
    rows = compare_sessions(SessionModel.read(old), SessionModel.read(new))
    assert rows and all(r.peak_mb_before is None for r in rows), "memory is not compared"
    assert "different methods" in method_note(SessionModel.read(old), SessionModel.read(new))
    assert method_note(SessionModel.read(new), SessionModel.read(new)) is None


def test_the_cli_reports_and_compares_a_schema_1_session(tmp_path):
    new = tmp_path / "new.json"
    new.write_text(json.dumps(synthetic_session(path=_v1()["config"]["source"]["path"])))
    cmd = [sys.executable, "-m", "tcprof.profiler"]
    done = subprocess.run(
        [*cmd, "report", str(V1), "--format", "md,html", "--out", str(tmp_path / "r")],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    assert "old method" in (tmp_path / "r" / "report.md").read_text()
    done = subprocess.run(
        [*cmd, "compare", str(V1), str(new)], capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 0 and "different methods" in done.stdout
