"""When two tensors agree: the rule the accuracy check (accuracy.py) applies to each output,
loss, gradient, buffer and parameter, the way `torch._dynamo.utils.same` does: allclose at the
dtype's tolerances, else a float64 run settles it; and the exact rule two eager runs must meet.
Also how a step's output is flattened into named tensors, and a batch cast to float64."""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Mapping
from types import SimpleNamespace
from typing import Any

import torch
from torch.utils._pytree import tree_map

# (rtol, atol) per parameter dtype; bfloat16 keeps only 8 mantissa bits (eps 7.8e-3), so its
# rtol is two ulps.
DTYPE_TOLERANCES: dict[torch.dtype, tuple[float, float]] = {
    torch.float32: (1e-4, 1e-5),
    torch.float16: (1e-3, 1e-5),
    torch.bfloat16: (1.6e-2, 1e-5),
    torch.float64: (1e-7, 1e-7),
}
Tensors = dict[str, torch.Tensor | None]
Row = dict[str, Any]  # one tensor compared: name, label, step, quantity, errors, why, settled


def whole(t: torch.Tensor) -> torch.Tensor:
    """A detached copy; an FSDP2 shard (a DTensor) gathered whole first (a collective: every
    rank calls it, in the same order)."""
    t = t.detach()
    full = getattr(t, "full_tensor", None)
    return (full() if callable(full) else t).clone()


def leaves(out: Any, name: str = "output") -> Tensors:
    """Every tensor in the output, named output, output[0], output['logits'], output.loss,
    copied (a later step may reuse its memory, as a CUDA graph's replay does)."""
    if isinstance(out, torch.Tensor):
        return {name: whole(out)}
    if isinstance(out, Mapping):
        items = [(f"{name}[{k!r}]", v) for k, v in out.items()]
    elif isinstance(out, (tuple, list)):
        items = [(f"{name}[{i}]", v) for i, v in enumerate(out)]
    elif dataclasses.is_dataclass(out) and not isinstance(out, type):
        items = [(f"{name}.{f.name}", getattr(out, f.name)) for f in dataclasses.fields(out)]
    else:
        return {}
    found: Tensors = {}
    for item_name, item in items:
        found.update(leaves(item, item_name))
    return found


def to_float64(batch: Any) -> SimpleNamespace:
    def cast(x: Any) -> Any:
        return x.double() if isinstance(x, torch.Tensor) and x.is_floating_point() else x

    return SimpleNamespace(
        args=tree_map(cast, tuple(batch.args)),
        kwargs=tree_map(cast, dict(batch.kwargs)),
        targets=tree_map(cast, batch.targets),
    )


def compare_tensors(
    name: str,
    label: str,
    res: torch.Tensor | None,
    ref: torch.Tensor | None,
    ref64: torch.Tensor | None,
    rtol: float,
    atol: float,
    why64: str | None,
) -> dict[str, Any]:
    """One tensor: its errors, and `why` it fails (None when close, or settled by float64)."""
    row = new_row(name, label)
    if res is None or ref is None:
        return {**row, "why": f"is None in the {'compiled' if res is None else 'eager'} run only"}
    if res.shape != ref.shape:
        return {**row, "why": f"has shape {tuple(res.shape)} compiled, {tuple(ref.shape)} eager"}
    a, b = res.double(), ref.double()
    row.update(errors(a, b))
    if res.dtype != ref.dtype:
        return {**row, "why": f"has dtype {res.dtype} compiled, {ref.dtype} eager"}
    if torch.allclose(a, b, rtol=rtol, atol=atol):
        return row
    differs = (
        f"differs: max abs err {row['max_abs_err']:.3g}, max rel err {row['max_rel_err']:.3g} "
        f"(rtol {rtol:g}, atol {atol:g})"
    )
    if ref64 is None or ref64.dtype != torch.float64 or ref64.shape != ref.shape:
        missing = f" ({why64})" if why64 else ""
        return {**row, "why": f"{differs}, and no float64 reference to settle it{missing}"}
    ok, res_err, ref_err, allowed = float64_rule(res, ref, ref64, max(rtol, atol))
    if ok:
        return {**row, "settled": True}
    truth = (
        f"float64 shows the compiled result is further from the truth than eager (RMSE to "
        f"float64: compiled {res_err:.3g}, eager {ref_err:.3g}, allowed {allowed:.3g})"
    )
    return {**row, "why": f"{differs}, and {truth}"}


def compare_exactly(
    name: str,
    label: str,
    rerun: torch.Tensor | None,
    ref: torch.Tensor | None,
    _ref64: torch.Tensor | None = None,
) -> dict[str, Any]:
    """One tensor of the second eager run against the first: they must be identical (NaN
    where the first has NaN), as the harness's tol=0 `same` wants; `why` they are not."""
    row = new_row(name, label)
    if rerun is None or ref is None:
        run = "second" if rerun is None else "first"
        return {**row, "why": f"is None in the {run} eager run only"}
    if rerun.shape != ref.shape or rerun.dtype != ref.dtype:
        return {
            **row,
            "why": f"is {rerun.dtype}{tuple(rerun.shape)} in the second eager run, "
            f"{ref.dtype}{tuple(ref.shape)} in the first",
        }
    if torch.equal(rerun, ref):
        return {**row, "max_abs_err": 0.0, "max_rel_err": 0.0}
    row.update(errors(rerun.double(), ref.double()))
    if (rerun.is_floating_point() or rerun.is_complex()) and bool(
        ((rerun == ref) | (rerun.isnan() & ref.isnan())).all()
    ):
        return {**row, "max_abs_err": 0.0, "max_rel_err": 0.0}  # NaN in the same places
    return {
        **row,
        "why": f"differs: max abs err {row['max_abs_err']:.3g}, max rel err "
        f"{row['max_rel_err']:.3g} (the runs must be identical)",
    }


def new_row(name: str, label: str) -> dict[str, Any]:
    return {
        "name": name,
        "label": label,
        "settled": False,
        "why": None,
        "max_abs_err": math.inf,
        "max_rel_err": math.inf,
    }


def errors(a: torch.Tensor, b: torch.Tensor) -> dict[str, float]:
    """The largest absolute difference, and that over b's largest magnitude."""
    if not a.numel():
        return {"max_abs_err": 0.0, "max_rel_err": 0.0}
    diff = (a - b).abs().max().item()
    scale = b.abs().max().item()
    return {"max_abs_err": diff, "max_rel_err": diff / scale if scale else diff}


def float64_rule(
    res: torch.Tensor, ref: torch.Tensor, ref64: torch.Tensor, tol: float
) -> tuple[bool, float, float, float]:
    """torch 2.13 torch._dynamo.utils.same, its fp64 branch with default flags: pass when
    RMSE(res, fp64) <= multiplier * RMSE(ref, fp64) + tol / 10. `same` takes one tol for rtol
    and atol alike; we pass the larger of ours. Its bigger multipliers for small tensors (10
    for <= 10 elements, 8 for <= 500) sit behind the opt-in use_larger_multiplier_for_smaller_tensor
    flag; by default a tensor under 1000 elements gets 3.0."""
    res64, ref_as64 = res.double(), ref.double()
    # same(): eager produced NaN where compiled and float64 agree (loosely) -> compiled is better.
    if (
        not ref64.isnan().any()
        and not res64.isnan().any()
        and ref_as64.isnan().any()
        and torch.allclose(ref64.to(res.dtype).double(), res64, rtol=4e-2, atol=4e-2)
    ):
        return True, 0.0, math.nan, 0.0
    ref_err = rmse(ref64, ref_as64)
    res_err = rmse(ref64, res64)
    multiplier = 3.0 if res.dtype in (torch.float16, torch.bfloat16) else 2.0
    if (
        ref64.numel() < 1000
        or (ref.ndim == 4 and ref.shape[-1] == ref.shape[-2] == 1)  # 1x1 kernels: noisy
        or tol >= 2e-2
    ):
        multiplier = 3.0
    allowed = multiplier * ref_err + tol / 10.0
    return res_err <= allowed, res_err, ref_err, allowed


def rmse(a: torch.Tensor, b: torch.Tensor) -> float:
    return torch.sqrt(torch.mean(torch.square(a - b))).item()


def rel_err(row: dict[str, Any]) -> float:
    """Sort key: a NaN error is the worst of all."""
    return math.inf if math.isnan(row["max_rel_err"]) else row["max_rel_err"]


def first_line(exc: BaseException) -> str:
    text = str(exc).strip()
    return text.splitlines()[0] if text else ""
