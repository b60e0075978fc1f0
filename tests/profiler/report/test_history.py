"""`tcprof history`: a series of synthetic sessions in a temporary sessions folder, whose changes
are known by construction."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tcprof.profiler.cli.main import main
from tcprof.profiler.folders.index import INDEX_JSON, load_index
from tcprof.profiler.report import history
from tests.support.history_series import write_series


def _history(folder: Path, capsys: pytest.CaptureFixture[str], *extra: str) -> str:
    assert main(["history", "model.py", "--sessions", str(folder), *extra]) == 0
    return capsys.readouterr().out


def test_a_slowdown_at_the_fourth_commit_is_flagged_there(tmp_path, capsys):
    commits = write_series(tmp_path, [1.0, 1.0, 1.0, 1.2, 1.2, 1.2])
    out = _history(tmp_path, capsys)
    changed = [line for line in out.splitlines() if line.startswith("changed:")]
    assert len(changed) == 1, out
    assert "fell from 1.2" in changed[0] and f"at {commits[3]} (torch unchanged)" in changed[0]


def test_a_series_without_change_flags_nothing(tmp_path, capsys):
    write_series(tmp_path, [1.0] * 6)
    out = _history(tmp_path, capsys)
    assert "changed:" not in out
    assert "no change beyond noise" in out


def test_a_change_within_the_series_own_spread_is_not_flagged(tmp_path, capsys):
    """Intervals alone would call each of these 10% steps a change; the series moves this much
    from session to session, so none is flagged."""
    write_series(tmp_path, [1.0, 1.1, 1.0, 1.1, 1.0, 1.1])
    assert "changed:" not in _history(tmp_path, capsys)
    assert history.series_spread([0.0, 0.1, 0.0, 0.1, 0.0, 0.1]) == pytest.approx(0.1 / 0.6745)
    assert history.series_spread([0.0, 0.1]) is None


def test_a_torch_and_machine_change_is_named_beside_the_change(tmp_path, capsys):
    torches = ["2.13.0+cpu"] * 3 + ["2.14.1+cpu"] * 3
    devices = ["Test CPU"] * 3 + ["Other CPU"] * 3
    commits = write_series(tmp_path, [1.0, 1.0, 1.0, 1.2, 1.2, 1.2], torches, devices)
    out = _history(tmp_path, capsys)
    assert (
        f"at {commits[3]} (torch 2.13.0+cpu → 2.14.1+cpu; machine changed: Test CPU → "
        "Other CPU)" in out
    )


def test_an_empty_folder_says_so_in_one_line(tmp_path, capsys):
    assert main(["history", "--sessions", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    assert out == f"no sessions in {tmp_path}\n"


def test_no_target_lists_the_series_with_their_counts(tmp_path, capsys):
    write_series(tmp_path, [1.0] * 3)
    assert main(["history", "--sessions", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    assert "model.py" in out and " 3 " in out


def test_the_html_page_is_written_offline_with_each_commit(tmp_path, capsys):
    commits = write_series(tmp_path / "s", [1.0, 1.0, 1.0, 1.2, 1.2])
    page = tmp_path / "h.html"
    _history(tmp_path / "s", capsys, "--html", str(page))
    text = page.read_text(encoding="utf-8")
    for c in commits:
        assert c in text
    assert "uPlot" in text and "http://" not in text.replace("http://www.w3.org", "")
    data = text.split('id="tcprof-history">')[1].split("</script>")[0]
    assert [s["commit"] for s in json.loads(data)["sessions"]] == commits


def test_the_index_is_kept_and_rebuilt_only_for_changed_folders(tmp_path):
    write_series(tmp_path, [1.0] * 3)
    first = load_index(tmp_path)
    assert len(first) == 3 and (tmp_path / INDEX_JSON).exists()
    session = tmp_path / "run-0001" / "session.json"
    data = json.loads(session.read_text())
    data["provenance"]["git"]["short"] = "fedcba9"
    session.write_text(json.dumps(data))
    (tmp_path / "run-0002" / "session.json").unlink()
    again = load_index(tmp_path)
    assert [e["short"] for e in again] == ["c000001", "fedcba9"]
    stored = json.loads((tmp_path / INDEX_JSON).read_text())
    assert sorted(stored["folders"]) == ["run-0000", "run-0001"]
