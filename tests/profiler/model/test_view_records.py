"""The records the window's tabs read, typed in the model: an arm's explain pre-pass and the
files it left, a row's torch.profiler pass; each missing (an old session) reads as None or
empty, never an error."""

from __future__ import annotations

from tcprof.profiler.model.session import SessionModel


def _session(arm_extra: dict, row_extra: dict) -> SessionModel:
    return SessionModel.from_json(
        {
            "config": {"batch_sizes": [8]},
            "arms": [
                {"name": "eager", "backend": "eager", "results": [{"batch_size": 8}]},
                {
                    "name": "inductor",
                    "backend": "inductor",
                    "results": [{"batch_size": 8, **row_extra}],
                    **arm_extra,
                },
            ],
        }
    )


def test_explain_artifacts_and_profile_are_typed() -> None:
    model = _session(
        {
            "explain": {"batch_size": 8, "graph_count": 2, "graph_break_count": 1, "op_count": 9,
                        "break_reasons": [{"reason": "x.item()"}]},
            "artifacts": [{"kind": "weights", "path": "/w/inductor.safetensors",
                           "format": "safetensors", "tensors": 4, "verified": True}],
        },
        {"profile": {"steps": 5, "path": "/t.json", "step_ms": 0.4, "quiet": True,
                     "mismatch": None, "top_ops": [{"name": "aten::mm", "calls": 2,
                                                    "self_ms_per_step": 1.5}]}},
    )  # fmt: skip
    arm = model.arm("inductor")
    assert arm.explain is not None
    assert (arm.explain.graphs, arm.explain.breaks, arm.explain.ops) == (2, 1, 9)
    assert arm.explain.break_reasons[0]["reason"] == "x.item()"
    (weights,) = arm.artifacts
    assert (weights.kind, weights.format, weights.tensors, weights.verified) == (
        "weights", "safetensors", 4, True
    )  # fmt: skip
    profile = arm.row(8).profile
    assert profile is not None and (profile.steps, profile.path, profile.quiet) == (
        5,
        "/t.json",
        True,
    )
    (op,) = profile.top_ops
    assert (op.name, op.calls, op.self_ms_per_step, op.total_ms_per_step) == (
        "aten::mm",
        2,
        1.5,
        None,
    )
    assert str(op.calls) == "2", "a count stays an integer"


def test_an_old_session_without_them_reads_empty() -> None:
    arm = _session({}, {}).arm("inductor")
    assert arm.explain is None and arm.artifacts == () and arm.row(8).profile is None
    assert _session({}, {"profile": {}}).arm("inductor").row(8).profile is None
