"""The tracker tests share one real, short run of the `simple` example (eager and aot_eager at
two batch sizes), saved as `tcprof run` saves it: session.json, steps.csv and the reports.
Tests that write into a session folder copy it first (`session_copy`)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from tcprof.profiler.report.export import REPORT_FORMATS, export_reports
from tcprof.profiler.store.files import read_session
from tests.support.real_run import run_real


@pytest.fixture(scope="session")
def saved_session(tmp_path_factory) -> Path:
    """The folder of a finished real run, with its reports (read-only for the tests)."""
    out = tmp_path_factory.mktemp("tracked") / "20250101-000000-simple"
    out.mkdir()
    run_real(out)
    export_reports(read_session(out), out, REPORT_FORMATS)
    return out


@pytest.fixture
def session_copy(saved_session, tmp_path) -> Path:
    """A copy of the shared session folder that a test may write into."""
    return Path(shutil.copytree(saved_session, tmp_path / saved_session.name))
