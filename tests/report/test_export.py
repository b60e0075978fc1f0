"""export_reports and `tcprof report`: atomic files, strict JSON, safe CSV, equal reports from a
live run and from its saved session.json."""

from __future__ import annotations

import argparse
import csv
import io
import json

import pytest

from profiler.config import ArmSpec
from profiler.report import export, export_reports
from profiler.report.cli import add_report_parser, cmd_report
from profiler.report.data import steps_csv_text, steps_rows
from tests.report.synthetic import synthetic_session

ALL = ["report.html", "report.md", "steps.csv", "session.json", "reproduce.py"]


def strict_json(text: str):
    def reject(name):
        raise ValueError(f"non-standard JSON constant {name}")

    return json.loads(text, parse_constant=reject)


def test_export_from_live_run_equals_export_from_saved_session(real_run, tmp_path):
    live, run_dir = real_run
    export_reports(live, tmp_path / "live")
    saved = json.loads((run_dir / "session.json").read_text())
    export_reports(saved, tmp_path / "saved")
    for name in ALL:
        a = (tmp_path / "live" / name).read_text()
        b = (tmp_path / "saved" / name).read_text()
        assert a == b, name
    # steps.csv regenerated from the session equals the engine's own steps.csv
    assert (tmp_path / "saved" / "steps.csv").read_text() == (run_dir / "steps.csv").read_text()


def test_cli_regenerates_from_session_json(real_run, tmp_path):
    _, run_dir = real_run
    out = tmp_path / "again"
    assert main_report([str(run_dir / "session.json"), "--out", str(out)]) == 0
    assert sorted(p.name for p in out.iterdir()) == sorted(ALL)
    assert (out / "report.md").read_text().count("| aot_eager |") == 2
    assert (
        main_report(
            [str(run_dir / "session.json"), "--format", "md", "--out", str(tmp_path / "md")]
        )
        == 0
    )
    assert sorted(p.name for p in (tmp_path / "md").iterdir()) == ["report.md", "reproduce.py"]


def test_cli_accepts_the_events_log_of_a_run(real_run, tmp_path):
    _, run_dir = real_run
    assert (
        main_report(
            [str(run_dir / "events.jsonl"), "--format", "md", "--out", str(tmp_path / "ev")]
        )
        == 0
    )
    assert (
        main_report(
            [str(run_dir / "session.json"), "--format", "md", "--out", str(tmp_path / "js")]
        )
        == 0
    )
    assert (tmp_path / "ev" / "report.md").read_text() == (
        tmp_path / "js" / "report.md"
    ).read_text()


def main_report(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="tcprof")
    add_report_parser(parser.add_subparsers(dest="command"))
    args = parser.parse_args(["report", *argv])
    return args.func(args)


def test_cli_usage_errors(tmp_path, capsys):
    assert main_report([str(tmp_path / "missing.json")]) == 2
    assert "session file not found" in capsys.readouterr().err
    bad = tmp_path / "bad.json"
    bad.write_text("{not json")
    assert main_report([str(bad)]) == 2
    err = capsys.readouterr().err
    assert "is not valid JSON" in err and err.count("\n") == 1
    other = tmp_path / "other.json"
    other.write_text("[1, 2]")
    assert main_report([str(other)]) == 2
    assert "not a tcprof session" in capsys.readouterr().err
    good = tmp_path / "session.json"
    good.write_text(json.dumps(synthetic_session()))
    assert main_report([str(good), "--format", "html,pdf"]) == 2
    assert "unknown format 'pdf'" in capsys.readouterr().err
    assert cmd_report is not None


def test_csv_cells_that_start_a_formula_are_neutralised(tmp_path):
    data = synthetic_session(
        arms=(ArmSpec("eager"), ArmSpec("aot_eager", label='=HYPERLINK("http://x")')),
    )
    text = steps_csv_text(data)
    rows = list(csv.reader(io.StringIO(text)))
    assert rows[0][:6] == ["arm", "batch_size", "replicate", "block", "step", "ms"]
    labels = {r[0] for r in rows[1:]}
    assert labels == {"eager", '\'=HYPERLINK("http://x")'}
    for prefix in ("+1", "-1", "@SUM(A1)"):
        data["samples"][0]["arm"] = prefix
        first = list(csv.reader(io.StringIO(steps_csv_text(data))))[1][0]
        assert first == "'" + prefix
    # numbers stay numbers (a negative number is not a text cell)
    assert all(float(r[5]) > 0 for r in rows[1:])


def test_steps_rows_take_the_latest_memory_reading():
    data = synthetic_session()
    rows = steps_rows(data)
    assert [r[4] for r in rows if r[0] == "eager"] == [3, 4, 5, 6]
    assert {r[6] for r in rows if r[0] == "eager"} == {300.0}


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
    html = (tmp_path / "report.html").read_text()
    data_json = html.split('id="tcprof-data">', 1)[1].split("</script>", 1)[0]
    strict_json(data_json)
    assert "NaN" not in data_json and "Infinity" not in data_json


def test_a_failing_renderer_leaves_the_old_files_intact(tmp_path, monkeypatch):
    data = synthetic_session()
    export_reports(data, tmp_path)
    before = {name: (tmp_path / name).read_bytes() for name in ALL}

    def boom(session_dict):
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
    import profiler.outputs as outputs

    def crash(src, dst):
        raise OSError("disk full")

    monkeypatch.setattr(outputs.os, "replace", crash)
    with pytest.raises(OSError):
        export_reports(synthetic_session(arms=(ArmSpec("eager"), ArmSpec("inductor"))), tmp_path)
    assert (tmp_path / "report.html").read_bytes() == before
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(ALL)


def test_unknown_format_is_rejected(tmp_path):
    with pytest.raises(export.UnknownFormat):
        export_reports(synthetic_session(), tmp_path, formats=("html", "docx"))
    assert list(tmp_path.iterdir()) == []
