"""The summary table reads the typed session model: a SessionModel and its session.json dict
give the same cells, the speedup is written by the model's one rule, and the figures the table
needs (a failed arm's compile timer, contended blocks, an A/A row) are typed fields."""

from __future__ import annotations

import pytest

from tcprof.profiler.config import ArmSpec
from tcprof.profiler.model.json_values import thaw
from tcprof.profiler.model.row import Row
from tcprof.profiler.model.session import SessionModel
from tcprof.profiler.report.sections import cells, method, table
from tests.support.synthetic import synthetic_session
from tests.support.typed import row_of

pytestmark = pytest.mark.timeout(60)


@pytest.fixture(scope="module")
def session() -> dict:
    arms = (ArmSpec("eager"), ArmSpec("aot_eager"))
    rounds = {0: [[10.0] * 4] * 3, 1: [[8.0] * 4] * 3}
    return synthetic_session(arms=arms, batch_sizes=(8, 16), rounds=rounds)


def test_a_model_and_its_dict_give_the_same_table_and_notes(session: dict) -> None:
    model = SessionModel.from_json(session)
    assert table.table_rows(SessionModel.read(model)) == table.table_rows(
        SessionModel.read(session)
    )
    assert method.method_notes(SessionModel.read(model)) == method.method_notes(
        SessionModel.read(session)
    )
    assert method.steps_text(SessionModel.read(model)) == method.steps_text(
        SessionModel.read(session)
    )
    assert method.tolerance_text(SessionModel.read(model)) == method.tolerance_text(
        SessionModel.read(session)
    )
    typed = [
        (i, arm.name, row.batch_size)
        for i, arm, row in table.summary_rows(SessionModel.read(model))
    ]
    raw = [
        (i, a["name"], r["batch_size"])
        for i, a, r in table.summary_results(SessionModel.read(session))
    ]
    assert typed == raw


def test_the_speedup_cell_is_the_models_own_words(session: dict) -> None:
    model = SessionModel.from_json(session)
    for row in model.rows:
        expected = "-" if row.speedup is None else str(row.speedup)
        assert (
            cells.fmt_speedup(row_of(row)) == cells.fmt_speedup(row_of(thaw(row.data))) == expected
        )


def _row(**fields: object) -> Row:
    return Row.of("inductor", {"batch_size": 8, "status": "ok", **fields}, False)


def test_a_failed_arms_compile_timer_is_typed() -> None:
    row = _row(status="error", compile_timer_s=4.67)
    assert row.compile is not None and row.compile.timer_s == 4.67
    assert cells.fmt_compile(row_of(row)) == "4.67 (torch's compile timer)"


def test_contended_blocks_and_a_control_row_are_typed() -> None:
    row = _row(contended_blocks=1, unquiet_blocks=3, blocks_measured=30)
    assert (row.blocks_contended, row.blocks_measured) == (3, 30)
    assert cells.contention_text(row_of(row)) == " (3/30 blocks contended)"
    control = _row(
        aa_of="eager", speedup=1.04, aa_speedup=1.04, aa_flagged=True, aa_ci=[1.01, 1.07]
    )
    assert control.control_of == "eager"
    assert cells.fmt_verdict(row_of(control)) == "A/A +4% (flagged)"
