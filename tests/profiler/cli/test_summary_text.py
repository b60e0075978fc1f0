"""The summary's accuracy detail reads every recorded case, a non-finite error included."""

from __future__ import annotations

from tcprof.profiler.model.row import Accuracy
from tcprof.profiler.model.session import SessionModel
from tcprof.profiler.report.sections.cells import accuracy_title


def _accuracy(saved: dict) -> Accuracy:
    accuracy = Accuracy.of({"status": "fail", **saved})
    assert accuracy is not None
    return accuracy


def test_accuracy_title_names_the_worst_tensor_and_a_non_finite_error():
    finite = {"worst": {"name": "fc.weight.grad", "max_abs_err": 0.01, "max_rel_err": 0.2}}
    assert (
        accuracy_title(_accuracy(finite))
        == "worst: fc.weight.grad (max abs err 0.01, max rel err 0.2)."
    )
    infinite = {
        "worst": {"name": "output", "max_abs_err": None, "max_rel_err": None},
        "reason": "x",
    }
    assert accuracy_title(_accuracy(infinite)) == (
        "worst: output (max abs err not finite, max rel err not finite). x"
    )


def test_method_notes_say_what_the_accuracy_check_compared_and_flag_added_arms():
    from tcprof.profiler.report.sections.method import method_notes

    row = {  # a row as saved: its batch size, an accuracy check's status
        "batch_size": 8,
        "replicates": 1,
        "accuracy": {
            "status": "pass",
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
    notes = method_notes(SessionModel.read(session))
    assert any(
        "one untimed inference step" in n
        and "output compared under autocast to torch.bfloat16" in n
        for n in notes
    )
    assert any("--apply-advice ran after the main rounds" in n for n in notes)
    row["accuracy"]["checked"] = ["output", "gradients"]
    session["config"] = {}
    assert any(
        "output and gradients compared" in n for n in method_notes(SessionModel.read(session))
    )


def _two_arm_session(failed: bool) -> dict:
    """Two arms of one round: both measured, or both failed after their first step."""
    from tcprof.profiler.config import ArmSpec, ModelSource, RunConfig
    from tcprof.profiler.session.fold import SessionFold

    config = RunConfig(
        source=ModelSource("model.py"),
        arms=(ArmSpec("eager"), ArmSpec("aot_eager")),
        batch_sizes=(8,),
        warmup=0,
        steps=4,
        replicates=1,
    ).to_dict()
    s = SessionFold()
    s.apply({"type": "run_start", "config": config, "wall_time": 1_700_000_000.0})
    s.apply({"type": "round_start", "replicate": 0, "order": ["eager", "aot_eager"]})
    for arm in (0, 1):
        s.apply({"type": "first_step", "arm": arm, "batch_size": 8, "ms": 30.0})
        if failed:
            error = {"kind": "runtime", "message": "forward exploded", "batch_size": 8}
            s.apply({"type": "error", "arm": arm, **error})
            continue
        steps = {"phase": "measure", "block": 0, "ms": [2.0, 2.1, 1.9, 2.0]}
        s.apply({"type": "steps", "arm": arm, "batch_size": 8, **steps})
        s.apply({"type": "bs_done", "arm": arm, "batch_size": 8})
    s.apply({"type": "run_end", "status": "error" if failed else "completed"})
    return s.to_dict()


def test_a_run_where_every_arm_failed_ends_on_no_footer_about_intervals_or_rounds():
    """Nothing was compared: the intervals footer ('run 3 or more rounds') and the note that
    the rounds' order is not balanced speak of rounds that never ran (a measured run keeps
    both)."""
    from tcprof.profiler.cli.summary import render_summary

    measured = render_summary(SessionModel.read(_two_arm_session(failed=False)))
    assert "run 3 or more rounds" in measured and "not balanced" in measured
    text = render_summary(SessionModel.read(_two_arm_session(failed=True)))
    assert "run 3 or more rounds" not in text and "speedup:" not in text, text
    assert "not balanced" not in text, text
    assert "aot_eager: error (runtime): forward exploded" in text
