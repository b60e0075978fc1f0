"""The summary's accuracy detail reads every recorded case, a non-finite error included."""

from __future__ import annotations

from profiler.summary import accuracy_title


def test_accuracy_title_names_the_worst_tensor_and_a_non_finite_error():
    finite = {"worst": {"name": "fc.weight.grad", "max_abs_err": 0.01, "max_rel_err": 0.2}}
    assert accuracy_title(finite) == "worst: fc.weight.grad (max abs err 0.01, max rel err 0.2)."
    infinite = {
        "worst": {"name": "output", "max_abs_err": None, "max_rel_err": None},
        "reason": "x",
    }
    assert accuracy_title(infinite) == (
        "worst: output (max abs err not finite, max rel err not finite). x"
    )
