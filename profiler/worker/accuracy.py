"""Untimed accuracy check of one step: the compiled arm against eager.

A compiled step never matches eager bit for bit (fusion reorders floating-point sums), so a
plain allclose can fail on a correct compile. Like torch._dynamo.utils.same (torch 2.13), a
tensor that is not allclose is settled by a float64 run of the same step: the compiled result
fails only when it is clearly further from that float64 "truth" than eager itself is.

A distributed arm is checked on every rank, each on its own slice of data: the compiled run is
the wrapped model (DDP, or FSDP2 with its sharded gradients gathered whole), the eager and
float64 runs are plain copies whose gradients are averaged across the ranks (`sync_grads`), as
DDP and FSDP average them, before they are compared and before any optimizer step.
"""

from __future__ import annotations

import contextlib
import copy
import dataclasses
import math
from collections.abc import Callable, Mapping
from types import SimpleNamespace
from typing import Any

import torch
import torch.nn as nn
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
Parts = tuple[Tensors, Tensors, Tensors]  # (output leaves, parameter grads, parameters stepped)
PART_LABELS = ("{}", "gradient of {}", "{} after one optimizer step")
PART_NAMES = ("output", "gradients", "parameters after one optimizer step")
MakeOptimizer = Callable[[Any], torch.optim.Optimizer]
CompileOptimizer = Callable[[Callable[[], None]], Callable[[], None]]
SyncGrads = Callable[[nn.Module], None]


def check_step(
    model: nn.Module,
    batch: Any,
    loss_of: Callable[[Any, Any], torch.Tensor],
    compile_fn: Callable[[nn.Module], Callable[..., Any]],
    seed: int,
    rtol: float | None = None,
    atol: float | None = None,
    loop: str = "train",
    amp: torch.dtype | None = None,
    make_optimizer: MakeOptimizer | None = None,
    compile_optimizer: CompileOptimizer | None = None,
    sync_grads: SyncGrads | None = None,
) -> dict[str, Any]:
    """Run one step eagerly, in float64 and compiled, each on a deep copy of `model` seeded
    alike, and compare the output and (in "train") every parameter's gradient.

    amp: forward and loss under torch.autocast to this dtype in the eager and the compiled
    run (the float64 run is the full-precision truth), with the dtype's tolerances.
    compile_optimizer (with make_optimizer): the compiled run steps a fresh optimizer through
    `compile_optimizer(opt_step)`, the others step theirs eagerly, and every parameter is
    compared after that one step as well.
    sync_grads: a distributed arm's reference runs average their gradients across ranks with
    it (the compiled run's wrapper does that itself).

    `model` is left untouched and the caller's RNG state is restored afterwards, so the timed
    runs that follow see exactly what they would have seen without this check.

    Dynamo does not guard on inductor's config: a graph compiled earlier in this process for
    the same model class (and backend) is reused here without fallback_random, and one
    compiled here is reused later with it. Give the check its own cache entry, e.g.
    torch.compile(m, backend="inductor", options={"fallback_random": True}) (a different
    backend config misses dynamo's backend match), or run it in a process of its own."""
    if loop not in ("train", "inference"):
        raise ValueError(f"loop must be 'train' or 'inference', not {loop!r}")
    if compile_optimizer is not None and (make_optimizer is None or loop != "train"):
        raise ValueError(
            "a compiled optimizer step is checked in a train loop, with make_optimizer"
        )
    params = [p for p in model.parameters() if p.is_floating_point()]
    dtype = amp or (params[0].dtype if params else torch.float32)
    default_rtol, default_atol = DTYPE_TOLERANCES.get(dtype, DTYPE_TOLERANCES[torch.float32])
    rtol = default_rtol if rtol is None else rtol
    atol = default_atol if atol is None else atol
    steps = compile_optimizer is not None
    checked = ["output"] if loop == "inference" else list(PART_NAMES[: 3 if steps else 2])
    result: dict[str, Any] = {
        "status": "skipped",
        "worst": None,
        "reason": None,
        "float64": False,
        "rtol": rtol,
        "atol": atol,
        "compared": 0,
        "checked": checked,
        "autocast": str(amp) if amp is not None else None,
    }
    if not params:
        return {**result, "reason": "the model has no floating-point parameters"}

    device = params[0].device
    rng_devices = [device] if device.type not in ("cpu", "meta") else []
    eager = _Variant(loop, amp, make_optimizer if steps else None, sync_grads=sync_grads)
    with torch.random.fork_rng(devices=rng_devices, device_type=device.type):
        ref = _run(model, None, batch, loss_of, seed, eager)
        if not ref[0]:
            return {**result, "reason": "the model's output has no tensor to compare"}
        try:
            truth = _Variant(loop, None, eager.make_optimizer, float64=True, sync_grads=sync_grads)
            ref64: Parts | None = _run(model, None, _to_float64(batch), loss_of, seed, truth)
            why64 = None
        except Exception as exc:
            ref64 = None
            why64 = f"float64 reference not possible: {type(exc).__name__}: {_first_line(exc)}"
        import torch._inductor.config as inductor_config
        from torch._dynamo.utils import counters

        graphs = counters["stats"]["unique_graphs"]
        # fallback_random makes inductor draw random numbers (dropout) with eager's kernels, so
        # both runs see the same stream; it must cover the backward too, which compiles lazily.
        with inductor_config.patch(fallback_random=True):
            arm = _Variant(loop, amp, eager.make_optimizer, compile_optimizer=compile_optimizer)
            res = _run(model, compile_fn, batch, loss_of, seed, arm)
        reused = counters["stats"]["unique_graphs"] == graphs

    rows = []
    for part, kind in enumerate(PART_LABELS):
        for name in ref[part] | res[part]:  # eager's order first
            a, b = res[part].get(name), ref[part].get(name)
            if a is None and b is None:
                continue  # a grad None in both runs is fine
            b64 = ref64[part].get(name) if ref64 else None
            rows.append(_compare(name, kind.format(name), a, b, b64, rtol, atol, why64))
    failed = [r for r in rows if r["why"]]
    settled = [r for r in rows if r["settled"]]
    worst = max(failed or rows, key=_rel_err, default=None)
    result.update(
        status="fail" if failed else "pass",
        worst=worst and {k: worst[k] for k in ("name", "max_abs_err", "max_rel_err")},
        float64=ref64 is not None,
        compared=len(rows),
    )
    if failed:
        assert worst is not None
        more = f"; {len(failed) - 1} more tensor(s) differ" if len(failed) > 1 else ""
        result["reason"] = f"{worst['label']} {worst['why']}{more}"
        if reused:
            result["reason"] += (
                " (the compiled run reused a graph compiled earlier in this process; if the model"
                " draws random numbers, that graph may lack fallback_random)"
            )
    elif settled:
        top = max(settled, key=_rel_err)
        result["reason"] = (
            f"{len(settled)} tensor(s) differ beyond rtol {rtol:g}, atol {atol:g}, but float64 "
            f"shows the compiled result is as close to the truth as eager (largest: "
            f"{top['label']}, max rel err {top['max_rel_err']:.3g})"
        )
    else:
        result["reason"] = why64
    return result


@dataclasses.dataclass(frozen=True)
class _Variant:
    """How one of the three runs goes: the loop kind, autocast, and the optimizer step."""

    loop: str
    amp: torch.dtype | None = None
    make_optimizer: MakeOptimizer | None = None  # None: no optimizer step is compared
    float64: bool = False
    compile_optimizer: CompileOptimizer | None = None
    sync_grads: SyncGrads | None = None

    def forward_mode(self, device_type: str) -> contextlib.ExitStack:
        stack = contextlib.ExitStack()
        if self.loop == "inference":
            stack.enter_context(torch.inference_mode())
        if self.amp is not None:
            stack.enter_context(torch.autocast(device_type=device_type, dtype=self.amp))
        return stack


def _run(
    model: nn.Module,
    compile_fn: Callable[[nn.Module], Callable[..., Any]] | None,
    batch: Any,
    loss_of: Callable[[Any, Any], torch.Tensor],
    seed: int,
    variant: _Variant,
) -> Parts:
    """One variant on a fresh deep copy: (output leaves, parameter grads by qualified name,
    parameters after one optimizer step)."""
    m = copy.deepcopy(model)
    for p in m.parameters():
        p.grad = None  # a copied .grad would be accumulated into
    if variant.float64:
        m.double()
    m.train(variant.loop == "train")
    runner = compile_fn(m) if compile_fn else m
    device = next(m.parameters()).device
    torch.manual_seed(seed)
    with variant.forward_mode(device.type):
        out = runner(*batch.args, **batch.kwargs)
        outputs = _leaves(out)
        if variant.loop == "inference" or not outputs:
            return outputs, {}, {}
        loss = loss_of(out, batch)
    loss.backward()
    if variant.sync_grads is not None:
        variant.sync_grads(m)
    grads = {n: None if p.grad is None else _whole(p.grad) for n, p in m.named_parameters()}
    if variant.make_optimizer is None:
        return outputs, grads, {}
    optimizer = variant.make_optimizer(m.parameters())

    def opt_step() -> None:
        optimizer.step()

    (variant.compile_optimizer(opt_step) if variant.compile_optimizer else opt_step)()
    stepped: Tensors = {n: _whole(p) for n, p in m.named_parameters()}
    return outputs, grads, stepped


def _whole(t: torch.Tensor) -> torch.Tensor:
    """A detached copy; an FSDP2 shard (a DTensor) gathered whole first (a collective: every
    rank calls it, in the same order)."""
    t = t.detach()
    full = getattr(t, "full_tensor", None)
    return (full() if callable(full) else t).clone()


def _leaves(out: Any, name: str = "output") -> Tensors:
    """Every tensor in the output, named output, output[0], output['logits'], output.loss."""
    if isinstance(out, torch.Tensor):
        return {name: out.detach()}
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
        found.update(_leaves(item, item_name))
    return found


def _to_float64(batch: Any) -> SimpleNamespace:
    def cast(x: Any) -> Any:
        return x.double() if isinstance(x, torch.Tensor) and x.is_floating_point() else x

    return SimpleNamespace(
        args=tree_map(cast, tuple(batch.args)),
        kwargs=tree_map(cast, dict(batch.kwargs)),
        targets=tree_map(cast, batch.targets),
    )


def _compare(
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
    row: dict[str, Any] = {"name": name, "label": label, "settled": False, "why": None}
    row.update(max_abs_err=math.inf, max_rel_err=math.inf)
    if res is None or ref is None:
        return {**row, "why": f"is None in the {'compiled' if res is None else 'eager'} run only"}
    if res.shape != ref.shape:
        return {**row, "why": f"has shape {tuple(res.shape)} compiled, {tuple(ref.shape)} eager"}
    a, b = res.double(), ref.double()
    if a.numel():
        diff = (a - b).abs().max().item()
        scale = b.abs().max().item()
        row.update(max_abs_err=diff, max_rel_err=diff / scale if scale else diff)
    else:
        row.update(max_abs_err=0.0, max_rel_err=0.0)
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
    ok, res_err, ref_err, allowed = _float64_rule(res, ref, ref64, max(rtol, atol))
    if ok:
        return {**row, "settled": True}
    truth = (
        f"float64 shows the compiled result is further from the truth than eager (RMSE to "
        f"float64: compiled {res_err:.3g}, eager {ref_err:.3g}, allowed {allowed:.3g})"
    )
    return {**row, "why": f"{differs}, and {truth}"}


def _float64_rule(
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
    ref_err = _rmse(ref64, ref_as64)
    res_err = _rmse(ref64, res64)
    multiplier = 3.0 if res.dtype in (torch.float16, torch.bfloat16) else 2.0
    if (
        ref64.numel() < 1000
        or (ref.ndim == 4 and ref.shape[-1] == ref.shape[-2] == 1)  # 1x1 kernels: noisy
        or tol >= 2e-2
    ):
        multiplier = 3.0
    allowed = multiplier * ref_err + tol / 10.0
    return res_err <= allowed, res_err, ref_err, allowed


def _rmse(a: torch.Tensor, b: torch.Tensor) -> float:
    return torch.sqrt(torch.mean(torch.square(a - b))).item()


def _rel_err(row: dict[str, Any]) -> float:
    """Sort key: a NaN error is the worst of all."""
    return math.inf if math.isnan(row["max_rel_err"]) else row["max_rel_err"]


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip()
    return text.splitlines()[0] if text else ""
