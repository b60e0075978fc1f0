"""The session model read from session.json: old sessions open (missing keys read as None or
empty), the typed fields carry the row's figures, and a speedup reads as the summary table
writes it."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tcprof.profiler.config import ArmSpec
from tcprof.profiler.model.session import SessionModel
from tcprof.profiler.report.sections.cells import fmt_speedup
from tests.support.synthetic import synthetic_session
from tests.support.typed import row_of

SAVED_V1 = Path(__file__).resolve().parents[2] / "support" / "data" / "session_v1.json"


def test_a_bare_session_opens_with_empty_parts() -> None:
    model = SessionModel.from_json({"arms": [{"name": "eager", "results": [{"batch_size": 8}]}]})
    row = model.row("eager", 8)
    assert model.schema_version is None and model.errors == () and model.series is None
    assert row.speedup is None and row.compile is None and row.compiles == ()
    assert row.process_medians_ms == () and row.noisy is False and row.memory.change is None
    assert model.arms[0].fallbacks == () and model.arms[0].environment is None


def test_a_version_1_session_opens() -> None:
    model = SessionModel.from_json(json.loads(SAVED_V1.read_text(encoding="utf-8")))
    assert model.arms and all(r.batch_size > 0 for r in model.rows)


def test_typed_fields_carry_the_rows_figures() -> None:
    doc = synthetic_session(arms=(ArmSpec("eager"), ArmSpec("aot_eager")), batch_sizes=(8, 16))
    model = SessionModel.from_json(doc)
    for arm, raw_arm in zip(model.arms, doc["arms"], strict=True):
        for row, raw in zip(arm.rows, raw_arm["results"], strict=True):
            assert row.median_ms == raw["median_ms"] and row.iqr_ms == raw.get("iqr_ms")
            assert len(row.compiles) == len(raw.get("compiles_list") or [])
    compiled = model.arms[1].rows[0]
    assert compiled.speedup is not None and compiled.recompiles == 1


@pytest.mark.parametrize(
    "row",
    [
        {"speedup": 1.21, "speedup_ci": [1.17, 1.28], "interval_covers_processes": True},
        {"speedup": 2.0, "speedup_ci": [0.55, 43.9], "interval_covers_processes": True},
        {"speedup": 1.5, "speedup_ci": [1.4, 1.6], "interval_covers_processes": False},
        {"speedup": 0.004, "speedup_ci": [0.003, 0.005], "interval_covers_processes": True},
        {"speedup": 1.1, "speedup_ci": [0.009, 150.0], "verdict": "no_interval"},
    ],
)
def test_a_speedup_reads_as_the_table_writes_it(row: dict[str, object]) -> None:
    doc = {"arms": [{"name": "a", "backend": "inductor", "results": [{"batch_size": 1, **row}]}]}
    speedup = SessionModel.from_json(doc).row("a", 1).speedup
    assert speedup is not None and str(speedup) == fmt_speedup(row_of(dict(row)))
