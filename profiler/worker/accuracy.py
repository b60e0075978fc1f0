"""Untimed accuracy check of two training steps: the compiled arm against eager.

Like the accuracy mode of PyTorch's benchmark harness (benchmarks/dynamo/common.py,
`check_accuracy`), each run is a fresh copy of the model seeded alike that takes two steps
(forward, loss, backward, optimizer step), the second from the weights the first produced, so
a compiled step that keeps using stale weights is caught. After each step the output, the
loss, every parameter's gradient, every buffer (BatchNorm's running statistics) and every
parameter after the optimizer step are compared (an inference loop: two forwards, the output
and the buffers).

Eager runs twice first: the two runs must agree exactly (the harness's `eager_two_runs_differ`).
If they do not, the model is nondeterministic (random numbers drawn outside torch's seeded
generators, or nondeterministic kernels), and the compiled run is not judged: the status is
"nondeterministic", not "fail".

A compiled step never matches eager bit for bit (fusion reorders floating-point sums), so a
plain allclose can fail on a correct compile. Like torch._dynamo.utils.same (torch 2.13), a
tensor that is not allclose is settled by a float64 run of the same steps: the compiled result
fails only when it is clearly further from that float64 "truth" than eager itself is.

A distributed arm is checked on every rank, each on its own slice of data: the compiled run is
the wrapped model (DDP, or FSDP2 with its sharded gradients gathered whole), the eager and
float64 runs are plain copies whose gradients are averaged across the ranks (`sync_grads`), as
DDP and FSDP average them, before they are compared and before any optimizer step; a DDP arm's
references take rank 0's buffers before each forward (`sync_buffers`), as DDP does.
"""

from __future__ import annotations

import contextlib
import copy
import dataclasses
import warnings
from collections.abc import Callable, Iterator
from typing import Any

import torch
import torch.nn as nn

from tcprof.profiler.worker.tensor_rules import (
    DTYPE_TOLERANCES,
    Row,
    Tensors,
    compare_exactly,
    compare_tensors,
    first_line,
    leaves,
    rel_err,
    to_float64,
    whole,
)

STEPS = 2  # the harness's --iterations default: the second step starts from the first's weights
DEFAULT_LR = 0.01  # a check given no optimizer steps SGD at this rate, as the harness does

# The quantities compared after each step, as `checked` and `failed_quantities` name them,
# each with how one of its tensors is labelled.
OUTPUT, LOSS, GRADIENTS, BUFFERS = "output", "loss", "gradients", "buffers"
PARAMETERS = "parameters after the optimizer step"
QUANTITIES: dict[str, str] = {
    OUTPUT: "{}",
    LOSS: "{}",
    GRADIENTS: "gradient of {}",
    BUFFERS: "buffer {}",
    PARAMETERS: "{} after the optimizer step",
}
NONDETERMINISTIC_HINT = (
    "random numbers drawn outside torch's seeded generators, or nondeterministic kernels"
)

Step = dict[str, Tensors]  # one step's tensors: by quantity, then by name
MakeOptimizer = Callable[[Any], torch.optim.Optimizer]
CompileOptimizer = Callable[[Callable[[], None]], Callable[[], None]]
SyncModule = Callable[[nn.Module], None]
SyncGrads = SyncModule  # the name callers know


@contextlib.contextmanager
def _deterministic(on: bool) -> Iterator[None]:
    """Deterministic kernels for the check, as PyTorch's harness sets them: on CUDA, atomic
    adds (index_add, scatter_add) and some cuDNN backward algorithms differ run to run, which
    would make every such model "nondeterministic" and hide the compiler's faults."""
    if not on:
        yield
        return
    was = (
        torch.are_deterministic_algorithms_enabled(),
        torch.is_deterministic_algorithms_warn_only_enabled(),
        torch.backends.cudnn.deterministic,
        torch.backends.cudnn.benchmark,
    )
    torch.use_deterministic_algorithms(True, warn_only=True)
    torch.backends.cudnn.deterministic, torch.backends.cudnn.benchmark = True, False
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", UserWarning)  # "... does not have a deterministic"
            yield
    finally:
        torch.use_deterministic_algorithms(was[0], warn_only=was[1])
        torch.backends.cudnn.deterministic, torch.backends.cudnn.benchmark = was[2], was[3]


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
    sync_grads: SyncModule | None = None,
    sync_buffers: SyncModule | None = None,
    steps: int = STEPS,
) -> dict[str, Any]:
    """Run `steps` steps (two by default) on the same batch twice eagerly, once in float64 and
    once compiled, each on a deep copy of `model` seeded alike before each step, and compare
    after each step the output and (in "train") the loss, every parameter's gradient and every
    parameter after the optimizer step; in both loops every buffer.

    Status "nondeterministic" when the two eager runs differ at all (the compiled run is then
    not judged), else "fail" when a compiled tensor is not allclose to eager's and float64
    does not settle it, else "pass"; "skipped" when there is nothing to compare.
    `failed_step` and `failed_quantities` say where the first difference was.

    make_optimizer: the training loop's optimizer (every run makes its own); None: SGD at
    DEFAULT_LR. amp: forward and loss under torch.autocast to this dtype in the eager and the
    compiled runs (the float64 run is the full-precision truth), with the dtype's tolerances.
    compile_optimizer: the compiled run steps its optimizer through
    `compile_optimizer(opt_step)`, the others step theirs eagerly.
    sync_grads: a distributed arm's reference runs average their gradients across ranks with
    it, sync_buffers (DDP) takes rank 0's buffers before each forward (the compiled run's
    wrapper does both itself).

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
    if steps < 1:
        raise ValueError(f"steps must be at least 1, not {steps}")
    train = loop == "train"
    params = [p for p in model.parameters() if p.is_floating_point()]
    dtype = amp or (params[0].dtype if params else torch.float32)
    default_rtol, default_atol = DTYPE_TOLERANCES.get(dtype, DTYPE_TOLERANCES[torch.float32])
    rtol = default_rtol if rtol is None else rtol
    atol = default_atol if atol is None else atol
    has_buffers = next(model.buffers(), None) is not None
    checked = [
        q for q in QUANTITIES if (train or q in (OUTPUT, BUFFERS)) and (q != BUFFERS or has_buffers)
    ]
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
        "steps": steps,
        "failed_step": None,
        "failed_quantities": [],
    }
    if not params:
        return {**result, "reason": "the model has no floating-point parameters"}

    device = params[0].device
    rng_devices = [device] if device.type not in ("cpu", "meta") else []
    optimizer = (make_optimizer or _default_optimizer) if train else None
    eager = _Variant(loop, amp, optimizer, sync_grads=sync_grads, sync_buffers=sync_buffers)
    with (
        torch.random.fork_rng(devices=rng_devices, device_type=device.type),
        _deterministic(device.type == "cuda"),
    ):
        ref = _run(model, None, batch, loss_of, seed, eager, steps)
        if not ref[0][OUTPUT]:
            return {**result, "reason": "the model's output has no tensor to compare"}
        rerun = _run(model, None, batch, loss_of, seed, eager, steps)
        try:
            truth = dataclasses.replace(eager, amp=None, float64=True)
            ref64: list[Step] | None = _run(
                model, None, to_float64(batch), loss_of, seed, truth, steps
            )
            why64 = None
        except Exception as exc:
            ref64 = None
            why64 = f"float64 reference not possible: {type(exc).__name__}: {first_line(exc)}"
        import torch._inductor.config as inductor_config
        from torch._dynamo.utils import counters

        graphs = counters["stats"]["unique_graphs"]
        # fallback_random makes inductor draw random numbers (dropout) with eager's kernels, so
        # both runs see the same stream; it must cover the backward too, which compiles lazily.
        with inductor_config.patch(fallback_random=True):
            arm = _Variant(loop, amp, optimizer, compile_optimizer=compile_optimizer)
            res = _run(model, compile_fn, batch, loss_of, seed, arm, steps)
        reused = counters["stats"]["unique_graphs"] == graphs

    # Every run goes through all its steps before any verdict: a distributed arm's ranks all
    # make the same collective calls, whatever each of them finds.
    def against_eager(
        name: str, label: str, a: torch.Tensor | None, b: torch.Tensor | None, b64: Any
    ) -> Row:
        return compare_tensors(name, label, a, b, b64, rtol, atol, why64)

    rows = _rows(res, ref, ref64, against_eager)
    differ = [r for r in _rows(rerun, ref, None, compare_exactly) if r["why"]]
    failed = [r for r in rows if r["why"]]
    settled = [r for r in rows if r["settled"]]
    worst = max(rows, key=rel_err, default=None)
    result.update(float64=ref64 is not None, compared=len(rows))
    if differ or failed:
        first, worst, quantities, text = _first_difference(differ or failed)
        result.update(failed_step=first, failed_quantities=quantities)
    if differ:
        result["status"] = "nondeterministic"
        result["reason"] = (
            f"the two eager runs differ, so the model is nondeterministic ({NONDETERMINISTIC_HINT})"
            f" and the compiled run is not judged: {text}"
        )
    elif failed:
        result["status"] = "fail"
        result["reason"] = text
        if reused:
            result["reason"] += (
                " (the compiled run reused a graph compiled earlier in this process; if the model"
                " draws random numbers, that graph may lack fallback_random)"
            )
    elif settled:
        result["status"] = "pass"
        top = max(settled, key=rel_err)
        result["reason"] = (
            f"{len(settled)} tensor(s) differ beyond rtol {rtol:g}, atol {atol:g}, but float64 "
            f"shows the compiled result is as close to the truth as eager (largest: step "
            f"{top['step']}: {top['label']}, max rel err {top['max_rel_err']:.3g})"
        )
    else:
        result.update(status="pass", reason=why64)
    result["worst"] = worst and {k: worst[k] for k in ("name", "max_abs_err", "max_rel_err")}
    return result


def _default_optimizer(params: Any) -> torch.optim.Optimizer:
    return torch.optim.SGD(params, lr=DEFAULT_LR)


@dataclasses.dataclass(frozen=True)
class _Variant:
    """How one of the four runs goes: the loop kind, autocast, the optimizer step, syncs."""

    loop: str
    amp: torch.dtype | None = None
    make_optimizer: MakeOptimizer | None = None  # a train loop's; None in inference
    float64: bool = False
    compile_optimizer: CompileOptimizer | None = None
    sync_grads: SyncModule | None = None
    sync_buffers: SyncModule | None = None

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
    steps: int,
) -> list[Step]:
    """One variant on a fresh deep copy, compiled (or wrapped) once and stepped `steps` times
    on the same batch: each step's tensors, copied as they were then. A model whose output
    holds no tensor stops after its first step (there is nothing to compare)."""
    m = copy.deepcopy(model)
    for p in m.parameters():
        p.grad = None  # a copied .grad would be accumulated into
    if variant.float64:
        m.double()
    train = variant.loop == "train"
    m.train(train)
    runner = compile_fn(m) if compile_fn else m  # wraps m first (DDP, FSDP2), if at all
    device = next(m.parameters()).device
    optimizer = variant.make_optimizer(m.parameters()) if variant.make_optimizer else None

    def opt_step() -> None:
        assert optimizer is not None
        optimizer.step()

    step_fn = variant.compile_optimizer(opt_step) if variant.compile_optimizer else opt_step
    record: list[Step] = []
    for step in range(steps):
        torch.manual_seed(seed + step)  # every run draws the same random numbers at each step
        if variant.sync_buffers is not None:
            variant.sync_buffers(m)
        with variant.forward_mode(device.type):
            out = runner(*batch.args, **batch.kwargs)
            outputs = leaves(out)
            loss = loss_of(out, batch) if train and outputs else None
        if loss is None or optimizer is None:
            record.append({OUTPUT: outputs, BUFFERS: _buffers(m)})
            if not outputs:
                break
            continue
        loss.backward()
        if variant.sync_grads is not None:
            variant.sync_grads(m)
        grads = {n: None if p.grad is None else whole(p.grad) for n, p in m.named_parameters()}
        step_fn()
        record.append(
            {
                OUTPUT: outputs,
                LOSS: {"loss": whole(loss)},
                GRADIENTS: grads,
                BUFFERS: _buffers(m),
                PARAMETERS: {n: whole(p) for n, p in m.named_parameters()},
            }
        )
        optimizer.zero_grad(set_to_none=True)
    return record


def _buffers(m: nn.Module) -> Tensors:
    return {n: whole(b) for n, b in m.named_buffers()}


def _rows(
    res: list[Step],
    ref: list[Step],
    ref64: list[Step] | None,
    judge: Callable[..., Row],
) -> list[Row]:
    """Every tensor of every step, `res` against `ref` (eager's order first), judged as
    judge(name, label, res, ref, ref64) says; a tensor None in both is fine (an unused
    parameter's gradient) and not compared."""
    rows = []
    for step, ref_step in enumerate(ref, start=1):
        res_step = res[step - 1] if len(res) >= step else {}
        step64 = ref64[step - 1] if ref64 is not None and len(ref64) >= step else {}
        for quantity, label in QUANTITIES.items():
            a_part, b_part = res_step.get(quantity, {}), ref_step.get(quantity, {})
            for name in b_part | a_part:
                a, b = a_part.get(name), b_part.get(name)
                if a is None and b is None:
                    continue
                b64 = step64.get(quantity, {}).get(name)
                row = judge(name, label.format(name), a, b, b64)
                rows.append({**row, "step": step, "quantity": quantity})
    return rows


def _first_difference(failed: list[Row]) -> tuple[int, Row, list[str], str]:
    """The first step with a tensor that differs, the worst of that step's, the quantities
    that differ there, and a sentence saying so."""
    first = min(r["step"] for r in failed)
    here = [r for r in failed if r["step"] == first]
    worst = max(here, key=rel_err)
    quantities = [q for q in QUANTITIES if any(r["quantity"] == q for r in here)]
    agree = (
        "" if first == 1 else " (step 1 agrees)" if first == 2 else f" (steps 1-{first - 1} agree)"
    )
    verb = "differs" if quantities in ([OUTPUT], [LOSS]) else "differ"
    counts = {
        s: sum(r["step"] == s for r in failed) - (s == first)
        for s in sorted({r["step"] for r in failed})
    }
    more = ", ".join(f"{n} at step {s}" for s, n in counts.items() if n)
    text = (
        f"step {first}{agree}: {_and(quantities)} {verb}; worst: {worst['label']} {worst['why']}"
        + (f"; more tensors differ: {more}" if more else "")
    )
    return first, worst, quantities, text


def _and(items: list[str]) -> str:
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + " and " + items[-1]
