"""The report tests share one real run of the `simple` example (read-only)."""

from __future__ import annotations

import pytest

from tests.support.real_run import run_real


@pytest.fixture(scope="session")
def real_run(tmp_path_factory):
    """A finished run of the `simple` example: (live session dict, its output folder)."""
    out = tmp_path_factory.mktemp("real_run")
    return run_real(out)
