"""The tracker tests share one real, short run of the `simple` example (eager and aot_eager at
two batch sizes, shared with the report tests), saved as `tcprof run` saves it: session.json,
steps.csv and the reports. Tests that write into a session folder copy it first (`session_copy`)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from tests.support.real_run import shared_real_run


@pytest.fixture(scope="session")
def saved_session(tmp_path_factory) -> Path:
    """The folder of a finished real run, with its reports (read-only for the tests)."""
    return shared_real_run(tmp_path_factory)[1]


@pytest.fixture
def session_copy(saved_session, tmp_path) -> Path:
    """A copy of the shared session folder that a test may write into."""
    return Path(shutil.copytree(saved_session, tmp_path / saved_session.name))
