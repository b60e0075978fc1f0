"""The accuracy check of distributed arms, for real: every rank checks its step wrapped as the
arm wraps it (DDP, FSDP2 with its gradients gathered whole) against plain copies whose
gradients are averaged across the ranks. A correct backend passes under both wrappers (the
DDP and FSDP runs of test_distributed.py check it); a backend that computes the wrong thing
fails, with the rank named."""

from __future__ import annotations

import pytest

from tests.support.cli import MODELS, arm, run_cli

pytestmark = [pytest.mark.timeout(300), pytest.mark.slow]  # one torchrun run of tens of seconds


def test_a_wrong_backend_under_fsdp_fails_on_its_ranks(tmp_path):
    arms = "relu_accuracy_error_TESTING_ONLY"
    rc, stdout, stderr, session = run_cli(
        [str(MODELS / "relu_model.py"), "--arms", arms, "--nproc", "2", "--parallel", "fsdp",
         "--batch-sizes", "8", "--warmup", "1", "--steps", "3", "--blocks", "1",
         "--min-block-ms", "0", "--quiet"],
        tmp_path / "out",
    )  # fmt: skip
    assert rc == 0, stdout + stderr
    assert session is not None
    (row,) = arm(session, "relu_accuracy_error_TESTING_ONLY")["results"]
    wrong = row["accuracy"]
    assert wrong["status"] == "fail" and wrong["ranks_checked"] == 2
    assert wrong["reason"].startswith("rank ") and "fc2" in wrong["reason"]
    assert "distributed arms on each of their 2 ranks" in stdout
