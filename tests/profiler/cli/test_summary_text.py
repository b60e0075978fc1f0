"""The summary's accuracy detail reads every recorded case, a non-finite error included."""

from __future__ import annotations

from tcprof.profiler.report.table import accuracy_title


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


def test_method_notes_say_what_the_accuracy_check_compared_and_flag_added_arms():
    from tcprof.profiler.report.table import method_notes

    row = {
        "replicates": 1,
        "accuracy": {
            "checked": ["output"],
            "autocast": "torch.bfloat16",
            "rtol": 0.016,
            "atol": 0.016,
        },
    }
    session = {
        "schema_version": 2,
        "config": {"loop": "inference", "added_arms": [{"backend": "inductor"}]},
        "arms": [{"results": [row]}],
    }
    notes = method_notes(session)
    assert any(
        "one untimed inference step" in n
        and "output compared under autocast to torch.bfloat16" in n
        for n in notes
    )
    assert any("--apply-advice ran after the main rounds" in n for n in notes)
    row["accuracy"]["checked"] = ["output", "gradients"]
    session["config"] = {}
    assert any("output and gradients compared" in n for n in method_notes(session))
