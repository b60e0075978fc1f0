"""A model file's inspection read once into typed records (process/inspected.py): what the window's
Model box and `tcprof inspect` read, from the worker's `model_info` answer or the error that
stood in for it."""

from __future__ import annotations

import pytest

from tcprof.profiler.process.inspected import Candidate, Inspection, InspectionError

pytestmark = pytest.mark.timeout(10)


def test_an_answer_reads_as_its_candidates_choice_and_probe() -> None:
    probe = {"ms": {"1": 2.0}}
    answer = {
        "type": "model_info",
        "candidates": [
            {"kind": "class", "name": "Net", "signature": "()", "zero_arg": True},
            {"kind": "factory", "name": "make", "signature": "(n)", "zero_arg": False},
            "not a candidate",
        ],
        "chosen": "Net",
        "params": 1234,
        "input": "3x32x32",
        "probe": probe,
    }
    inspection = Inspection.of(answer)
    assert inspection.answered and inspection.error is None
    assert inspection.candidates == (
        Candidate("Net", "class", "()", True),
        Candidate("make", "factory", "(n)", False),
    )
    assert (inspection.chosen, inspection.params, inspection.input) == ("Net", 1234, "3x32x32")
    assert inspection.probe == probe


def test_an_error_reads_as_its_kind_stage_and_place() -> None:
    error = {
        "kind": "load",
        "stage": "build",
        "message": "M() missing 1 required positional argument",
        "file": "/x/model.py",
        "line": 7,
        "needs_arguments": True,
        "cause": "M() takes arguments",
    }
    inspection = Inspection.of({"error": error})
    assert inspection.error == InspectionError(
        "load", error["message"], "build", "/x/model.py", 7, True, "M() takes arguments"
    )
    assert inspection.candidates == () and inspection.params is None


def test_nothing_inspected_and_malformed_values_read_as_empty() -> None:
    assert Inspection.of({}) == Inspection(answered=False)
    odd = Inspection.of({"params": True, "chosen": 3, "error": {}, "probe": [1]})
    assert odd.params is None and odd.chosen is None and odd.error is None and odd.probe is None
    assert InspectionError.of("crashed") is None
