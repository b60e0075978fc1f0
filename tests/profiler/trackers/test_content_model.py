"""What a tracker logs is read from the typed session model: a SessionModel and the dict it was
read from give the same log, and the figures are the model's typed ones."""

from __future__ import annotations

from pathlib import Path

import pytest

from tcprof.profiler.cli.main import EXIT_OK, exit_code, failure_lines
from tcprof.profiler.model.session import SessionModel
from tcprof.profiler.trackers.content import headline, session_log
from tests.support.synthetic import synthetic_session

pytestmark = pytest.mark.timeout(60)


def test_a_model_and_its_dict_log_the_same(tmp_path: Path) -> None:
    doc = synthetic_session(ms=[10.0, 11.0, 10.5, 10.2])
    model = SessionModel.from_json(doc, tmp_path)
    assert session_log(model, tmp_path) == session_log(SessionModel.from_json(doc), tmp_path)


def test_the_headline_figures_are_the_rows_typed_fields(tmp_path: Path) -> None:
    model = SessionModel.from_json(synthetic_session(ms=[10.0, 11.0, 10.5, 10.2]), tmp_path)
    for arm in model.arms:
        figures = headline(arm)
        for row in arm.rows:
            assert figures["median_ms"][row.batch_size] == row.median_ms
            if row.memory.ratio is not None:
                assert figures["memory_ratio"][row.batch_size] == row.memory.ratio


def test_the_exit_code_and_failure_lines_read_the_model() -> None:
    model = SessionModel.from_json(synthetic_session())
    assert failure_lines(model) == []
    assert exit_code(model) == exit_code(SessionModel.from_json(model.to_dict()))
    failed = synthetic_session(error={"kind": "load", "message": "no model here"})
    failed_model = SessionModel.from_json(failed)
    assert failure_lines(failed_model) or exit_code(failed_model) != EXIT_OK
