"""The CI gate pattern of docs/api.md: a pytest file in a user's repository that runs tcprof and
asserts on its verdict and on a comparison with a saved baseline, run by pytest as the user's
CI would run it. It fails when the compiled arm is slower (a backend slower by construction,
tests/support/models/paced_model.py) and passes when it is not."""

from __future__ import annotations

import subprocess
import sys
import textwrap

import pytest

import tcprof
from tests.support.paths import MODELS

pytestmark = [pytest.mark.slow, pytest.mark.timeout(600)]

PACED = MODELS / "paced_model.py"
# two rounds: the fewest that give an interval (one round's verdict is "no interval")
SCHEDULE = dict(
    batch_sizes=8, warmup=1, steps=8, blocks=2, replicates=2, min_block_ms=0, no_accuracy=True
)

GATE = """
import pytest
import tcprof

@pytest.fixture(scope="module")
def session():
    return tcprof.run(
        {model!r},
        arms="eager; {backend}:label=compiled",
        quiet=True,
        **{schedule!r},
    )

def test_the_compiled_step_is_not_slower(session):
    assert session.verdict("compiled", 8) != "slower"

def test_nothing_got_worse_than_the_baseline(session):
    assert tcprof.compare(tcprof.load({baseline!r}), session).worse is False
"""


@pytest.fixture(scope="module")
def baseline(tmp_path_factory):
    """The saved session the gate compares with: the compiled arm several times faster."""
    out = tmp_path_factory.mktemp("baseline")
    session = tcprof.run(
        PACED, arms="eager; paced_TESTING_ONLY:label=compiled", out=out, quiet=True, **SCHEDULE
    )
    assert session.verdict("compiled", 8) == "faster"
    return out


def _gate(tmp_path, backend: str, baseline) -> subprocess.CompletedProcess[str]:
    test_file = tmp_path / "test_speed_gate.py"
    test_file.write_text(
        textwrap.dedent(GATE).format(
            model=str(PACED), backend=backend, schedule=SCHEDULE, baseline=str(baseline)
        )
    )
    return subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", test_file.name],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=400,
    )


def test_the_gate_fails_on_a_slower_arm(tmp_path, baseline):
    proc = _gate(tmp_path, "sleepy_TESTING_ONLY", baseline)
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert "2 failed" in proc.stdout
    assert "assert 'slower' != 'slower'" in proc.stdout
    assert "assert True is False" in proc.stdout, "the comparison says worse"


def test_the_gate_passes_when_the_arm_is_not_slower(tmp_path, baseline):
    proc = _gate(tmp_path, "paced_TESTING_ONLY", baseline)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "2 passed" in proc.stdout
