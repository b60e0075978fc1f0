"""`tcprof inspect` prints the inspection's typed record (process/inspected.py): each candidate,
the model chosen with its parameters and input, or the error in one line. The worker's answer is
scripted here (a real inspection is tested in tests/profiler/process/test_fork_server.py)."""

from __future__ import annotations

import pytest

from tcprof.profiler.cli.main import EXIT_ERROR, EXIT_OK, main
from tcprof.profiler.process import inspection

pytestmark = pytest.mark.timeout(30)


def _answering(monkeypatch, answer):
    asked = []

    def inspect_model(source, **_kw):
        asked.append(source)
        return answer

    monkeypatch.setattr(inspection, "inspect_model", inspect_model)
    return asked


def test_inspect_lists_the_candidates_and_the_choice(monkeypatch, tmp_path, capsys):
    model = tmp_path / "model.py"
    model.write_text("")
    asked = _answering(
        monkeypatch,
        {
            "candidates": [
                {"kind": "class", "name": "Net", "signature": "()", "zero_arg": True},
                {"kind": "function", "name": "make", "signature": "(n)", "zero_arg": False},
            ],
            "chosen": "Net",
            "params": 12345,
            "input": "3x8x8",
        },
    )
    assert main(["inspect", str(model)]) == EXIT_OK
    out = capsys.readouterr().out.splitlines()
    assert out[0] == "class    Net()"
    assert out[1] == "function make(n)   (needs arguments)"
    assert out[-1] == "chosen: Net  parameters: 12,345  input: 3x8x8"
    assert asked[0].path == str(model)


def test_inspect_says_the_error_in_one_line(monkeypatch, tmp_path, capsys):
    model = tmp_path / "model.py"
    model.write_text("")
    _answering(monkeypatch, {"error": {"kind": "syntax", "message": "invalid syntax (line 1)"}})
    assert main(["inspect", str(model)]) == EXIT_ERROR
    captured = capsys.readouterr()
    assert captured.err.strip() == "tcprof: error: invalid syntax (line 1)"
    assert "chosen" not in captured.out
