"""Whether a torch.profiler pass describes the step it claims to: its profiled steps' wall time
against the measured median, and its operators' time against its own steps.

A profile taken on a busy machine, or of steps so small that the profiler's own overhead per
operator dwarfs them, lists operator times that no measured step had (a GPT model's `aten::mm`
at 218 ms per step against a 9 ms median). Such a profile still says where time went in *its*
steps, but its times are not the measured step's, and a comparison of two such profiles must
not be read as savings.
"""

from __future__ import annotations

from tcprof.profiler.model.profile import Profile
from tcprof.profiler.protocol import units

TOLERANCE = 1.5  # profiled step / measured median outside [1/1.5, 1.5] is a mismatch
OPS_SLACK = 1.1  # the top operators' self time may exceed the profiled step by rounding only


def profile_mismatch(typed: Profile | None, median_ms: float | None) -> str | None:
    """One sentence on why the profile does not describe the measured step, or None (the row's
    writer reads the worker's profile as a `Profile` first)."""
    step_ms = typed.step_ms if typed is not None else None
    if typed is None or step_ms is None or step_ms <= 0:
        return None  # a session saved before profiles timed their steps
    reasons = []
    if isinstance(median_ms, (int, float)) and median_ms > 0:
        ratio = step_ms / median_ms
        if ratio > TOLERANCE or ratio < 1 / TOLERANCE:
            why = (
                "the machine was busy when it ran"
                if typed.quiet is False
                else "the profiler's own overhead per operator"
                if ratio > 1
                else "the profiled steps ran faster than the measured ones"
            )
            reasons.append(
                f"its steps took {units.ms(step_ms)} each against a measured median of "
                f"{units.ms(median_ms)} ({units.ratio(ratio)}: {why})"
            )
    self_ms = sum(op.self_ms_per_step or 0.0 for op in typed.top_ops)
    if self_ms > step_ms * OPS_SLACK:
        reasons.append(
            f"its top operators' self time ({units.ms(self_ms)} per step) exceeds its own step "
            f"({units.ms(step_ms)})"
        )
    if not reasons:
        return None
    return "the profile does not describe the measured step: " + "; ".join(reasons)
