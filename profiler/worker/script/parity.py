"""Loss parity, the accuracy check of a script: the loss curves of its first steps, eager
against a compiled arm, from the same seeds.

The untimed accuracy process runs the script three times for the same steps: eager, eager
again (the two must be identical, or the script is nondeterministic and the compiled run is not
judged), and the arm as it is, whose compiles the warm cache holds. Only where the arm's curve
parts from eager's does it run a fourth time with inductor's `fallback_random` on (so dropout
draws what eager draws), and that run is judged: the switch is part of inductor's cache key, so
running with it first recompiled every graph (9.5 of the nanoGPT-shape script's 10 s check),
and without random draws in the graph it changes nothing.
Step k passes when |arm - eager| <= atol + rtol * |eager|; the verdict names the first step
where the curves part. Pure Python: tested without torch.

The tolerance (docs/methodology.md, "Loss parity"; bench/script_parity.py measures it): a
correct compile changes the order of floating-point sums, so losses differ by a few float32
ulps, growing as training amplifies them. Over the first 10 steps of the five test scripts on
the CPU, aot_eager matched eager exactly and inductor differed by at most 1.4e-7 relative; the
fault-injecting relu_accuracy_error_TESTING_ONLY differed by 1.2e-1 at the first step.
RTOL = 1e-3 sits four orders of magnitude above the one and two below the other, leaving room
for GPUs (TF32, other kernels) and longer horizons; a script under autocast to bf16 or fp16
computes in a precision whose own rounding is ~1e-2, and needs `--rtol 1e-2`.
"""

from __future__ import annotations

import math
from typing import Any

RTOL = 1e-3
ATOL = 1e-5
STEPS = (
    10  # the first steps compared (no more than the timed schedule's first step + warm-up + steps)
)


def _same(a: float | None, b: float | None) -> bool:
    if a is None or b is None:
        return a is b
    return a == b or (math.isnan(a) and math.isnan(b))


def _close(arm: float | None, eager: float | None, rtol: float, atol: float) -> bool:
    if arm is None or eager is None:
        return arm is eager
    if math.isnan(eager) or math.isnan(arm):
        return math.isnan(eager) and math.isnan(arm)
    return abs(arm - eager) <= atol + rtol * abs(eager)


def retry_with_fallback_random(result: dict[str, Any], compiled: bool, fallback: bool) -> bool:
    """A compiled arm whose curve parted from eager's without fallback_random may only draw
    other random numbers (dropout): it runs once more with the switch on."""
    return compiled and not fallback and result.get("status") == "fail"


def compare_losses(
    eager: list[float | None],
    eager_again: list[float | None],
    arm: list[float | None],
    rtol: float | None = None,
    atol: float | None = None,
) -> dict[str, Any]:
    """The `accuracy` event's fields for one phase."""
    rtol = RTOL if rtol is None else rtol
    atol = ATOL if atol is None else atol
    n = min(len(eager), len(eager_again), len(arm))
    out: dict[str, Any] = {
        "rtol": rtol,
        "atol": atol,
        "steps": n,
        "compared": n,
        "checked": ["loss"],
        "float64": False,
        "failed_step": None,
        "failed_quantities": [],
        "worst": None,
        "reason": None,
        "curves": {"eager": eager[:n], "eager_again": eager_again[:n], "arm": arm[:n]},
    }
    if n == 0 or all(v is None for v in eager[:n]):
        return {
            **out,
            "status": "skipped",
            "reason": "no loss to compare: the script called "
            "backward on no scalar in its first steps",
        }
    for k in range(n):
        if not _same(eager[k], eager_again[k]):
            return {
                **out,
                "status": "nondeterministic",
                "failed_step": k,
                "failed_quantities": ["loss"],
                "reason": f"two eager runs of the script from the same seeds differ at step {k} "
                f"({eager[k]} and {eager_again[k]}): the compiled run is not judged",
            }
    worst: dict[str, Any] | None = None
    for k in range(n):
        e, a = eager[k], arm[k]
        if e is not None and a is not None and not (math.isnan(e) or math.isnan(a)):
            err = abs(a - e)
            rel = err / abs(e) if e else (0.0 if err == 0 else math.inf)
            if worst is None or rel > worst["max_rel_err"]:
                worst = {"name": f"loss at step {k}", "max_abs_err": err, "max_rel_err": rel}
        if not _close(a, e, rtol, atol):
            return {
                **out,
                "status": "fail",
                "worst": worst,
                "failed_step": k,
                "failed_quantities": ["loss"],
                "reason": f"the loss curves part at step {k}: eager {e}, this arm {a} "
                f"(tolerance {atol:g} + {rtol:g} x |eager|)",
            }
    return {**out, "status": "pass", "worst": worst}
