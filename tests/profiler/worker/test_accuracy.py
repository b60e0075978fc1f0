"""The untimed accuracy check: two eager runs that must agree, then two steps compiled against
eager, settled by a float64 run."""

from __future__ import annotations

import copy
import importlib.util
import sys
from dataclasses import dataclass, field
from typing import Any

import pytest
import torch
import torch.nn as nn
import torch.nn.functional as F

from tcprof.profiler.worker.accuracy import check_step
from tcprof.profiler.worker.tensor_rules import DTYPE_TOLERANCES
from tests.support import faulty_backends
from tests.support.cli import FAST_CHECKED, arm, events, run_cli
from tests.support.paths import MODELS

pytestmark = pytest.mark.timeout(300)

TRAIN_CHECKED = ["output", "loss", "gradients", "parameters after the optimizer step"]


def load_model(file: str, name: str) -> type[nn.Module]:
    spec = importlib.util.spec_from_file_location(f"accuracy_{file}", MODELS / f"{file}.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # before exec: dataclasses and pickling look it up there
    spec.loader.exec_module(module)
    return getattr(module, name)


@dataclass
class Batch:
    args: tuple
    kwargs: dict = field(default_factory=dict)
    targets: Any = None


def mse(out, batch):
    return F.mse_loss(out, batch.targets)


def build(cls: type[nn.Module], outputs: int, dtype=torch.float32) -> tuple[nn.Module, Batch]:
    torch.manual_seed(0)
    model = cls().to(dtype)
    batch = Batch((torch.randn(16, 8, dtype=dtype),), {}, torch.randn(16, outputs, dtype=dtype))
    return model, batch


def compiler(backend: str, **kwargs):
    return lambda m: torch.compile(m, backend=backend, **kwargs)


@pytest.fixture(autouse=True)
def fresh_dynamo():
    """Each test compiles from scratch: no graph reused from another test, no recompile limit."""
    torch._dynamo.reset()
    yield
    torch._dynamo.reset()


def test_dropout_passes_against_aot_eager():
    """Every run is seeded alike before each step, so the two eager runs and the compiled one
    draw the same dropout masks."""
    model, batch = build(load_model("dropout_model", "DropoutNet"), 4)
    r = check_step(model, batch, mse, compiler("aot_eager"), seed=1)
    assert r["status"] == "pass", r["reason"]
    assert r["float64"] is True
    # per step: output, loss, fc1/fc2 weight and bias grads, and the same four after the step
    assert r["compared"] == 2 * (1 + 1 + 4 + 4)
    assert r["steps"] == 2 and r["checked"] == TRAIN_CHECKED
    assert r["reason"] is None and r["failed_step"] is None and r["failed_quantities"] == []
    assert (r["rtol"], r["atol"]) == DTYPE_TOLERANCES[torch.float32]


@pytest.mark.inductor
def test_dropout_passes_against_inductor():
    model, batch = build(load_model("dropout_model", "DropoutNet"), 4)
    r = check_step(model, batch, mse, compiler("inductor"), seed=1)
    assert r["status"] == "pass", r["reason"]
    assert r["worst"]["max_abs_err"] < 1e-4
    assert r["compared"] == 20
    assert torch._inductor.config.fallback_random is False  # restored


@pytest.mark.inductor
def test_inductor_dropout_differs_from_eager_without_fallback_random():
    """Why check_step sets fallback_random: inductor's own dropout draws another mask."""
    model, batch = build(load_model("dropout_model", "DropoutNet"), 4)
    eager, compiled = copy.deepcopy(model), torch.compile(copy.deepcopy(model), backend="inductor")
    torch.manual_seed(1)
    ref = eager(*batch.args)
    torch.manual_seed(1)
    res = compiled(*batch.args)
    assert not torch.allclose(res, ref, rtol=1e-4, atol=1e-5)


def test_relu_fault_injection_fails_and_names_the_worst_tensor():
    model, batch = build(load_model("relu_model", "ReluNet"), 1)
    r = check_step(model, batch, mse, compiler("relu_accuracy_error_TESTING_ONLY"), seed=1)
    assert r["status"] == "fail"
    assert r["float64"] is True
    assert r["compared"] == 20
    # relu(h) became h + 1: fc2's inputs, so its weight gradient, move the most (rel err ~14).
    assert r["worst"]["name"] == "fc2.weight"
    assert r["worst"]["max_rel_err"] > 1
    assert r["failed_step"] == 1 and r["failed_quantities"] == TRAIN_CHECKED
    assert r["reason"].startswith(
        "step 1: output, loss, gradients and parameters after the optimizer step differ; "
        "worst: gradient of fc2.weight differs: max abs err"
    )
    assert "float64 shows the compiled result is further from the truth than eager" in r["reason"]
    assert r["reason"].endswith("more tensors differ: 9 at step 1, 10 at step 2")
    # A second check finds dynamo's cached graph for this backend and says so (it cannot know
    # whether that graph was compiled with fallback_random).
    again = check_step(model, batch, mse, compiler("relu_accuracy_error_TESTING_ONLY"), seed=1)
    assert again["status"] == "fail"
    assert "reused a graph compiled earlier in this process" in again["reason"]


def test_model_that_cannot_run_in_float64_still_passes_without_the_reference():
    cls = load_model("no_float64", "NoFloat64Net")
    model, batch = build(cls, 2)
    with pytest.raises(RuntimeError):  # the premise: float32 runs, a float64 copy does not
        copy.deepcopy(model).double()(batch.args[0].double())
    r = check_step(model, batch, mse, compiler("aot_eager"), seed=1)
    assert r["status"] == "pass"
    assert r["float64"] is False
    assert r["reason"].startswith("float64 reference not possible: RuntimeError: ")


def test_without_float64_a_difference_fails_and_says_why():
    model, batch = build(load_model("no_float64", "NoFloat64Net"), 2)
    r = check_step(model, batch, mse, compiler("aot_eager"), seed=1, rtol=0, atol=0)
    assert r["status"] == "pass"  # aot_eager is bit-identical, even at zero tolerance

    def off_by_a_bit(m):
        return lambda *a, **k: m(*a, **k) + 1e-3

    r = check_step(model, batch, mse, off_by_a_bit, seed=1, loop="inference")
    assert r["status"] == "fail"
    assert r["worst"]["name"] == "output"
    assert "no float64 reference to settle it (float64 reference not possible" in r["reason"]


class TwoHeads(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(8, 4)
        self.drop = nn.Dropout(0.5)  # off in inference: eval() must be applied

    def forward(self, x):
        h = self.drop(self.fc(x))
        return {"logits": h, "extra": (h.sum(), h.argmax(-1))}


def test_inference_compares_outputs_only():
    model, batch = build(TwoHeads, 4)
    r = check_step(model, batch, mse, compiler("aot_eager"), seed=1, loop="inference")
    assert r["status"] == "pass", r["reason"]
    # output['logits'], output['extra'][0], output['extra'][1], at each of the two forwards
    assert r["compared"] == 2 * 3
    assert r["checked"] == ["output"] and r["float64"] is True


def test_float64_settles_a_difference_within_eagers_own_error():
    """A result computed in float64 is closer to the truth than eager's float32: not allclose at
    zero tolerance, but float64 shows it is fine; one nudged off the truth is not."""
    model, batch = build(load_model("relu_model", "ReluNet"), 1)

    def in_float64(m):
        m.double()
        return lambda x: m(x.double()).float()

    r = check_step(model, batch, mse, in_float64, seed=1, rtol=0, atol=0, loop="inference")
    assert r["status"] == "pass"
    assert "2 tensor(s) differ beyond rtol 0, atol 0, but float64 shows" in r["reason"]
    assert "(largest: step 1: output, max rel err" in r["reason"]
    assert r["worst"]["name"] == "output" and r["worst"]["max_abs_err"] > 0

    def nudged(m):
        return lambda x: m(x) * (1 + 1e-5)

    r = check_step(model, batch, mse, nudged, seed=1, rtol=0, atol=0, loop="inference")
    assert r["status"] == "fail" and r["failed_step"] == 1
    assert r["reason"].startswith("step 1: output differs; worst: output differs")
    assert "float64 shows the compiled result is further from the truth" in r["reason"]


def test_model_passed_in_is_left_unchanged():
    model, batch = build(load_model("dropout_model", "DropoutNet"), 4)
    model.eval()
    before = {k: v.clone() for k, v in model.state_dict().items()}
    torch.manual_seed(123)
    rng = torch.get_rng_state()
    check_step(model, batch, mse, compiler("aot_eager"), seed=1)
    after = model.state_dict()
    assert all(torch.equal(before[k], after[k]) for k in before)
    assert all(p.grad is None for p in model.parameters())
    assert not model.training
    assert torch.equal(torch.get_rng_state(), rng)  # the caller's random stream is kept


def test_unused_parameter_has_no_grad_in_either_run_and_is_not_compared():
    class Unused(nn.Module):
        def __init__(self):
            super().__init__()
            self.fc = nn.Linear(8, 1)
            self.spare = nn.Parameter(torch.ones(3))

        def forward(self, x):
            return self.fc(x)

    model, batch = build(Unused, 1)
    r = check_step(model, batch, mse, compiler("aot_eager"), seed=1)
    assert r["status"] == "pass"
    # per step: output, loss, fc.weight and fc.bias grads; then all three after the step (the
    # spare parameter is compared there: it did not move in either run)
    assert r["compared"] == 2 * (1 + 1 + 2 + 3)


def test_explicit_tolerances_are_used_and_none_means_the_dtype_default():
    model, batch = build(load_model("relu_model", "ReluNet"), 1, dtype=torch.bfloat16)
    faulty = compiler("relu_accuracy_error_TESTING_ONLY")
    r = check_step(model, batch, mse, faulty, seed=1)
    assert (r["rtol"], r["atol"]) == DTYPE_TOLERANCES[torch.bfloat16] == (1.6e-2, 1e-5)
    assert r["status"] == "fail"
    assert "(rtol 0.016, atol 1e-05)" in r["reason"]
    r = check_step(model, batch, mse, faulty, seed=1, rtol=100.0, atol=100.0)
    assert (r["rtol"], r["atol"]) == (100.0, 100.0)
    assert r["status"] == "pass"  # the fault is within these (absurd) tolerances
    r = check_step(model, batch, mse, faulty, seed=1, rtol=100.0)
    assert (r["rtol"], r["atol"]) == (100.0, 1e-5)


def test_nothing_to_compare_is_skipped():
    r = check_step(nn.ReLU(), Batch((torch.randn(2, 3),)), mse, compiler("aot_eager"), seed=1)
    assert r["status"] == "skipped" and "no floating-point parameters" in r["reason"]

    class NoTensorOut(nn.Module):
        def __init__(self):
            super().__init__()
            self.fc = nn.Linear(8, 1)

        def forward(self, x):
            return {"n": int(self.fc(x).shape[0])}

    model, batch = build(NoTensorOut, 1)
    r = check_step(model, batch, mse, compiler("aot_eager"), seed=1)
    assert r["status"] == "skipped" and "no tensor" in r["reason"]
    assert r["compared"] == 0 and r["worst"] is None


# -- two steps, buffers, and two eager runs ----------------------------------------------------
def test_a_backward_only_fault_is_caught_at_the_gradients():
    """The forward (output, loss) is exact; every gradient is scaled by 1.5."""
    faulty_backends.register()
    model, batch = build(load_model("dropout_model", "DropoutNet"), 4)
    r = check_step(model, batch, mse, compiler(faulty_backends.BACKWARD_FAULT), seed=1)
    assert r["status"] == "fail"
    assert r["failed_step"] == 1
    assert r["failed_quantities"] == ["gradients", "parameters after the optimizer step"]
    assert r["reason"].startswith(
        "step 1: gradients and parameters after the optimizer step differ; worst: gradient of "
    )
    assert r["worst"]["max_rel_err"] == pytest.approx(faulty_backends.GRADIENT_SCALE - 1, rel=1e-3)


def test_stale_weights_are_caught_at_the_second_step():
    """The compiled step keeps computing with the weights it was compiled with: the first step
    is exact, the second (from the stepped weights) is not; one step alone would pass."""
    faulty_backends.register()
    model, batch = build(load_model("relu_model", "ReluNet"), 1)
    stale = compiler(faulty_backends.STALE_WEIGHTS)
    r = check_step(model, batch, mse, stale, seed=1)
    assert r["status"] == "fail"
    assert r["failed_step"] == 2 and r["steps"] == 2
    assert r["failed_quantities"][:2] == ["output", "loss"]
    assert r["reason"].startswith("step 2 (step 1 agrees): output, loss, gradients and ")
    torch._dynamo.reset()
    one = check_step(model, batch, mse, stale, seed=1, steps=1)
    assert one["status"] == "pass" and one["steps"] == 1, one["reason"]


@pytest.mark.parametrize("backend", ["eager", "aot_eager"])
def test_batchnorm_passes_with_its_buffers_compared(backend):
    model, batch = build(load_model("batchnorm_model", "BatchNormNet"), 4)
    r = check_step(model, batch, mse, compiler(backend), seed=1)
    assert r["status"] == "pass", r["reason"]
    assert r["checked"] == [
        "output",
        "loss",
        "gradients",
        "buffers",
        "parameters after the optimizer step",
    ]
    # per step: output, loss, 6 gradients, 3 buffers (running_mean, running_var,
    # num_batches_tracked), 6 parameters after the step
    assert r["compared"] == 2 * (1 + 1 + 6 + 3 + 6)


def test_a_buffer_that_drifts_fails_at_the_buffers():
    """A compiled run whose BatchNorm updates its running statistics differently: in train
    mode the output uses the batch's statistics, so only the buffers tell."""

    def drifting(m):
        m.bn.momentum = 0.2
        return torch.compile(m, backend="aot_eager")

    model, batch = build(load_model("batchnorm_model", "BatchNormNet"), 4)
    r = check_step(model, batch, mse, drifting, seed=1)
    assert r["status"] == "fail"
    assert r["failed_step"] == 1 and r["failed_quantities"] == ["buffers"]
    assert r["reason"].startswith("step 1: buffers differ; worst: buffer bn.running_")
    assert r["worst"]["name"] in ("bn.running_mean", "bn.running_var")


def test_a_nondeterministic_model_is_not_blamed_on_the_compiler():
    """Noise from a generator torch.manual_seed does not reseed: the two eager runs differ, so
    the status is nondeterministic, naming what differed, and the compiled run is not judged."""
    model, batch = build(load_model("nondeterministic_model", "NoisyNet"), 4)
    r = check_step(model, batch, mse, compiler("aot_eager"), seed=1)
    assert r["status"] == "nondeterministic"
    assert r["failed_step"] == 1 and r["failed_quantities"] == TRAIN_CHECKED
    assert r["reason"].startswith(
        "the two eager runs differ, so the model is nondeterministic (random numbers drawn "
        "outside torch's seeded generators, or nondeterministic kernels) and the compiled run "
        "is not judged: step 1: output, loss, gradients and parameters after the optimizer step "
        "differ; worst: output differs: max abs err "
    )
    assert "(the runs must be identical)" in r["reason"]
    assert r["worst"]["name"] == "output" and r["worst"]["max_abs_err"] > 0


def test_a_worker_reports_a_nondeterministic_model(tmp_path):
    """Through a real accuracy process: the event, with its new fields, reaches the session."""
    rc, _, stderr, s = run_cli(
        [str(MODELS / "nondeterministic_model.py"), "--arms", "eager,aot_eager"]
        + ["--batch-sizes", "4", *FAST_CHECKED],
        tmp_path,
    )
    assert rc == 0, stderr[-3000:]
    acc = arm(s, "aot_eager")["results"][0]["accuracy"]
    assert acc["status"] == "nondeterministic"
    assert (acc["steps"], acc["failed_step"]) == (2, 1)
    assert "output" in acc["failed_quantities"]
    assert "the two eager runs differ" in acc["reason"]
    (event,) = [e for e in events(tmp_path) if e["type"] == "accuracy"]
    assert event["status"] == "nondeterministic" and event["checked"] == TRAIN_CHECKED


def test_a_stale_weight_backend_registered_by_the_model_file_fails_at_step_2(tmp_path):
    """End to end through `tcprof run`: the model file registers the wrong backend, `--arms`
    names it, and the accuracy process catches it at the second step, not the first."""
    rc, _, stderr, s = run_cli(
        [str(MODELS / "stale_backend_model.py"), "--arms", "eager,stale_weights_TESTING_ONLY"]
        + ["--batch-sizes", "4", *FAST_CHECKED],
        tmp_path,
    )
    assert rc == 0, stderr[-3000:]
    acc = arm(s, "stale_weights_TESTING_ONLY")["results"][0]["accuracy"]
    assert acc["status"] == "fail" and acc["failed_step"] == 2, acc
    assert "step 2 (step 1 agrees)" in acc["reason"]
