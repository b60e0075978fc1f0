"""export_reports and `tcprof report`: atomic files, strict JSON, safe CSV, equal reports from a
live run and from its saved session.json, each file holding what the session holds."""

from __future__ import annotations

import argparse
import ast
import csv
import io
import json

import pytest

from tcprof.profiler.cli.report_command import add_report_parser
from tcprof.profiler.config import ArmSpec
from tcprof.profiler.folders.files import read_session, session_json_text
from tcprof.profiler.folders.steps_csv import steps_csv_text, steps_rows
from tcprof.profiler.report import export
from tcprof.profiler.report.export import export_reports
from tests.support.synthetic import synthetic_session

ALL = ["report.html", "report.md", "steps.csv", "session.json", "reproduce.py"]


def strict_json(text: str):
    def reject(name):
        raise ValueError(f"non-standard JSON constant {name}")

    return json.loads(text, parse_constant=reject)


def html_data(html: str):
    """The session dict report.html embeds for its charts."""
    return strict_json(html.split('id="tcprof-data">', 1)[1].split("</script>", 1)[0])


def csv_rows(text: str) -> list[list[str]]:
    return list(csv.reader(io.StringIO(text)))


def assert_files_hold(folder, session: dict) -> None:
    """Every exported file parses and holds the session's own values."""
    saved = strict_json((folder / "session.json").read_text())
    assert saved == json.loads(json.dumps(session))
    rows = csv_rows((folder / "steps.csv").read_text())
    measured = [ms for s in session["samples"] for ms in s["ms"]]
    assert len(rows) == 1 + len(measured)
    assert [float(r[5]) for r in rows[1:]] == pytest.approx(measured, abs=1e-6)
    assert [(r[0], int(r[1])) for r in rows[1:]] == [
        (s["arm"], s["batch_size"]) for s in session["samples"] for _ in s["ms"]
    ]
    md = (folder / "report.md").read_text()
    for arm in session["arms"]:
        for result in arm["results"]:
            assert f"| {arm['name']} | {result['batch_size']} |" in md
    embedded = html_data((folder / "report.html").read_text())
    assert [a["name"] for a in embedded["arms"]] == [a["name"] for a in session["arms"]]
    assert [s["ms"] for s in embedded["samples"]] == [s["ms"] for s in session["samples"]]
    assert [row["median_ms"] for row in embedded["summary"]] == [
        r["median_ms"] for a in session["arms"] for r in a["results"]
    ]
    script = (folder / "reproduce.py").read_text()
    ast.parse(script)
    assert session["config"]["source"]["path"] in script


def test_export_from_live_run_equals_export_from_saved_session(real_run, tmp_path):
    live, run_dir = real_run
    export_reports(live, tmp_path / "live")
    saved = read_session(run_dir)
    assert saved == json.loads(json.dumps(live)), "session.json holds the live session"
    export_reports(saved, tmp_path / "saved")
    for name in ALL:
        a = (tmp_path / "live" / name).read_text()
        b = (tmp_path / "saved" / name).read_text()
        assert a == b, name
    assert_files_hold(tmp_path / "saved", live)
    # session.json and steps.csv regenerated from the session equal the engine's own files
    # (session.json's paths are relative to the folder it is written for: the run's own)
    assert session_json_text(saved, run_dir) == (run_dir / "session.json").read_text()
    assert (tmp_path / "saved" / "steps.csv").read_text() == (run_dir / "steps.csv").read_text()


def main_report(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="tcprof")
    add_report_parser(parser.add_subparsers(dest="command"))
    args = parser.parse_args(["report", *argv])
    return args.func(args)


def test_cli_regenerates_from_session_json(real_run, tmp_path, capsys):
    live, run_dir = real_run
    out = tmp_path / "again"
    assert main_report([str(run_dir / "session.json"), "--out", str(out)]) == 0
    printed = capsys.readouterr().out.split()
    assert sorted(printed) == sorted(str(out / name) for name in ALL)
    assert sorted(p.name for p in out.iterdir()) == sorted(ALL)
    assert_files_hold(out, live)
    assert (out / "report.md").read_text().count("| aot_eager |") == 2  # one row per size
    md_only = tmp_path / "md"
    assert main_report([str(run_dir), "--format", "md", "--out", str(md_only)]) == 0
    assert sorted(p.name for p in md_only.iterdir()) == ["report.md", "reproduce.py"]
    assert (md_only / "report.md").read_text() == (out / "report.md").read_text()


def test_cli_accepts_the_events_log_of_a_run(real_run, tmp_path):
    live, run_dir = real_run
    ev, js = tmp_path / "ev", tmp_path / "js"
    assert main_report([str(run_dir / "events.jsonl"), "--out", str(ev)]) == 0
    assert main_report([str(run_dir / "session.json"), "--out", str(js)]) == 0
    for name in ALL:
        assert (ev / name).read_text() == (js / name).read_text(), name
    assert_files_hold(ev, live)


def test_cli_usage_errors(tmp_path, capsys):
    missing = tmp_path / "missing.json"
    assert main_report([str(missing)]) == 2
    assert capsys.readouterr().err == f"tcprof: error: session file not found: {missing}\n"
    assert main_report([str(tmp_path)]) == 2, "a folder without a session"
    assert "session file not found" in capsys.readouterr().err
    bad = tmp_path / "bad.json"
    bad.write_text("{not json")
    assert main_report([str(bad)]) == 2
    err = capsys.readouterr().err
    assert err == f"tcprof: error: {bad} is not valid JSON (line 1, column 2)\n"
    other = tmp_path / "other.json"
    other.write_text("[1, 2]")
    assert main_report([str(other)]) == 2
    assert "not a tcprof session" in capsys.readouterr().err
    good = tmp_path / "session.json"
    good.write_text(json.dumps(synthetic_session()))
    assert main_report([str(good), "--format", "html,pdf"]) == 2
    assert "unknown format 'pdf'" in capsys.readouterr().err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["bad.json", "other.json", "session.json"]


def test_csv_cells_that_start_a_formula_are_neutralised(tmp_path):
    data = synthetic_session(
        arms=(ArmSpec("eager"), ArmSpec("aot_eager", label='=HYPERLINK("http://x")')),
    )
    rows = csv_rows(steps_csv_text(data))
    assert rows[0][:6] == ["arm", "batch_size", "replicate", "block", "step", "ms"]
    labels = {r[0] for r in rows[1:]}
    assert labels == {"eager", '\'=HYPERLINK("http://x")'}
    for prefix in ("+1", "-1", "@SUM(A1)"):
        data["samples"][0]["arm"] = prefix
        first = csv_rows(steps_csv_text(data))[1][0]
        assert first == "'" + prefix
    # numbers stay numbers (a negative number is not a text cell), equal to the samples'
    assert [float(r[5]) for r in rows[1:]] == [ms for s in data["samples"] for ms in s["ms"]]


def test_steps_rows_take_the_latest_memory_reading():
    data = synthetic_session()
    rows = steps_rows(data)
    assert [r[4] for r in rows if r[0] == "eager"] == [3, 4, 5, 6]
    assert {r[6] for r in rows if r[0] == "eager"} == {300.0}
    assert {r[6] for r in rows if r[0] == "aot_eager"} == {301.0}


def test_steps_rows_name_the_round_and_block_of_each_step():
    data = synthetic_session()
    sample = data["samples"][0]
    sample["ms"] = [1.0, 2.0, 3.0, 4.0, 5.0]
    sample["blocks"] = [[0, 0, 2], [0, 1, 1], [1, 0, 2]]
    rows = [r for r in steps_rows(data) if r[0] == sample["arm"]]
    assert [(r[2], r[3], r[5]) for r in rows] == [
        (0, 0, 1.0),
        (0, 0, 2.0),
        (0, 1, 3.0),
        (1, 0, 4.0),
        (1, 0, 5.0),
    ]
    assert rows[3][6] is None, "memory is the first round's"


def test_nan_and_infinity_are_written_as_null(tmp_path):
    data = synthetic_session()
    data["arms"][1]["results"][0]["speedup"] = float("inf")
    data["arms"][1]["results"][0]["memory_ratio"] = float("nan")
    data["samples"][1]["ms"][0] = float("nan")
    export_reports(data, tmp_path)
    saved = strict_json((tmp_path / "session.json").read_text())
    assert saved["arms"][1]["results"][0]["speedup"] is None
    assert saved["arms"][1]["results"][0]["memory_ratio"] is None
    assert saved["samples"][1]["ms"][0] is None
    assert saved["samples"][1]["ms"][1:] == data["samples"][1]["ms"][1:]
    html = (tmp_path / "report.html").read_text()
    assert html_data(html)["samples"][1]["ms"][0] is None  # parsed as strict JSON
    data_json = html.split('id="tcprof-data">', 1)[1].split("</script>", 1)[0]
    assert "NaN" not in data_json and "Infinity" not in data_json


def test_a_failing_renderer_leaves_the_old_files_intact(tmp_path, monkeypatch):
    data = synthetic_session()
    export_reports(data, tmp_path)
    before = {name: (tmp_path / name).read_bytes() for name in ALL}

    def boom(session_dict, folder):
        raise RuntimeError("renderer crashed")

    changed = synthetic_session(arms=(ArmSpec("eager"), ArmSpec("inductor")))
    monkeypatch.setitem(export.FORMATS, "md", ("report.md", boom))
    with pytest.raises(RuntimeError, match="renderer crashed"):
        export_reports(changed, tmp_path)
    after = {name: (tmp_path / name).read_bytes() for name in ALL}
    assert after == before
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(ALL)  # no temporary file left


def test_a_crash_while_writing_keeps_the_previous_file(tmp_path, monkeypatch):
    data = synthetic_session()
    export_reports(data, tmp_path)
    before = (tmp_path / "report.html").read_bytes()
    import tcprof.profiler.folders.outputs as outputs

    def crash(src, dst):
        raise OSError("disk full")

    monkeypatch.setattr(outputs.os, "replace", crash)
    with pytest.raises(OSError):
        export_reports(synthetic_session(arms=(ArmSpec("eager"), ArmSpec("inductor"))), tmp_path)
    assert (tmp_path / "report.html").read_bytes() == before
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(ALL)


def test_unknown_format_is_rejected(tmp_path):
    with pytest.raises(export.UnknownFormat, match="unknown format 'docx'"):
        export_reports(synthetic_session(), tmp_path, formats=("html", "docx"))
    assert list(tmp_path.iterdir()) == []


def test_a_session_model_exports_the_same_files_as_its_dict(tmp_path):
    """The window hands the model it shows: every file is the one its session.json gives."""
    from tcprof.profiler.model.session import SessionModel

    session = synthetic_session()
    written = export_reports(session, tmp_path / "dict", ["html", "md", "csv", "json"])
    again = export_reports(
        SessionModel.from_json(session), tmp_path / "model", ["html", "md", "csv", "json"]
    )
    assert [p.name for p in written] == [p.name for p in again]
    assert "reproduce.py" in [p.name for p in again]
    for a, b in zip(written, again, strict=True):
        assert a.read_text() == b.read_text(), a.name
