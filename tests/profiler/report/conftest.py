"""The report tests share one real run of the `simple` example (read-only), with the tracker
tests: one run for the whole pass (`tests/support/real_run.py`)."""

from __future__ import annotations

import pytest

from tests.support.real_run import shared_real_run


@pytest.fixture(scope="session")
def real_run(tmp_path_factory):
    """A finished run of the `simple` example: (live session dict, its output folder)."""
    return shared_real_run(tmp_path_factory)
