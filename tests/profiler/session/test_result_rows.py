"""Result rows are typed (ResultRow) and serialise to exactly the keys session.json documents;
sessions saved before keep every key they had."""

from __future__ import annotations

import dataclasses
import json
import re

from tcprof.profiler.cli.summary import render_summary
from tcprof.profiler.config import ArmSpec
from tcprof.profiler.model.session import SessionModel
from tcprof.profiler.session.result_row import ResultRow
from tests.support.paths import DATA, ROOT
from tests.support.synthetic import synthetic_session

SAVED_V1 = DATA / "session_v1.json"


def documented_row_keys() -> list[str]:
    """The keys in the first column of docs/session-format.md's `arms[i].results[j]` table."""
    text = (ROOT / "docs" / "session-format.md").read_text()
    section = text.split("## `arms[i].results[j]`", 1)[1].split("\n## ", 1)[0]
    keys = []
    for line in section.splitlines():
        if line.startswith("| `"):
            keys += re.findall(r"`([a-z0-9_]+)`", line.split("|")[1])
    return keys


def test_a_row_has_exactly_the_documented_keys():
    documented = documented_row_keys()
    assert len(documented) == len(set(documented)) > 40
    fields = [f.name for f in dataclasses.fields(ResultRow)]
    assert sorted(fields) == sorted(documented)


def test_rows_built_from_a_run_serialise_in_field_order():
    session = synthetic_session(arms=(ArmSpec("eager"), ArmSpec("aot_eager")), batch_sizes=(8, 16))
    fields = [f.name for f in dataclasses.fields(ResultRow)]
    rows = [row for arm in session["arms"] for row in arm["results"]]
    assert len(rows) == 4
    assert all(list(row) == fields for row in rows)
    compiled = session["arms"][1]["results"][0]
    assert compiled["speedup"] is not None and compiled["compile_status"] == "recompiled"
    assert compiled["recompiles"] == 1 and compiled["graph_breaks"] == 1


def test_a_saved_session_keeps_its_keys_and_still_reads():
    saved = json.loads(SAVED_V1.read_text())
    documented = set(documented_row_keys())
    for arm in saved["arms"]:
        for row in arm["results"]:
            assert set(row) <= documented, set(row) - documented
    assert "speedup" in render_summary(SessionModel.read(saved))
