"""The untimed accuracy check: compiled against eager, settled by a float64 run."""

from __future__ import annotations

import copy
import importlib.util
from dataclasses import dataclass, field
from typing import Any

import pytest
import torch
import torch.nn as nn
import torch.nn.functional as F

from tcprof.profiler.worker.accuracy import DTYPE_TOLERANCES, check_step
from tests.support.paths import MODELS


def load_model(file: str, name: str) -> type[nn.Module]:
    spec = importlib.util.spec_from_file_location(f"accuracy_{file}", MODELS / f"{file}.py")
    module = importlib.util.module_from_spec(spec)
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
    model, batch = build(load_model("dropout_model", "DropoutNet"), 4)
    r = check_step(model, batch, mse, compiler("aot_eager"), seed=1)
    assert r["status"] == "pass", r["reason"]
    assert r["float64"] is True
    assert r["compared"] == 5  # output + fc1/fc2 weight and bias grads
    assert r["reason"] is None
    assert (r["rtol"], r["atol"]) == DTYPE_TOLERANCES[torch.float32]


@pytest.mark.inductor
def test_dropout_passes_against_inductor():
    model, batch = build(load_model("dropout_model", "DropoutNet"), 4)
    r = check_step(model, batch, mse, compiler("inductor"), seed=1)
    assert r["status"] == "pass", r["reason"]
    assert r["worst"]["max_abs_err"] < 1e-4
    assert r["compared"] == 5
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
    assert r["compared"] == 5
    # relu(h) became h + 1: fc2's inputs, so its weight gradient, move the most (rel err ~14).
    assert r["worst"]["name"] == "fc2.weight"
    assert r["worst"]["max_rel_err"] > 1
    assert r["reason"].startswith("gradient of fc2.weight differs: max abs err")
    assert "float64 shows the compiled result is further from the truth than eager" in r["reason"]
    assert r["reason"].endswith("4 more tensor(s) differ")
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
    assert r["compared"] == 3  # output['logits'], output['extra'][0], output['extra'][1]
    assert r["float64"] is True


def test_float64_settles_a_difference_within_eagers_own_error():
    """A result computed in float64 is closer to the truth than eager's float32: not allclose at
    zero tolerance, but float64 shows it is fine; one nudged off the truth is not."""
    model, batch = build(load_model("relu_model", "ReluNet"), 1)

    def in_float64(m):
        m.double()
        return lambda x: m(x.double()).float()

    r = check_step(model, batch, mse, in_float64, seed=1, rtol=0, atol=0, loop="inference")
    assert r["status"] == "pass"
    assert "1 tensor(s) differ beyond rtol 0, atol 0, but float64 shows" in r["reason"]
    assert r["worst"]["name"] == "output" and r["worst"]["max_abs_err"] > 0

    def nudged(m):
        return lambda x: m(x) * (1 + 1e-5)

    r = check_step(model, batch, mse, nudged, seed=1, rtol=0, atol=0, loop="inference")
    assert r["status"] == "fail"
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
    assert r["compared"] == 3  # output, fc.weight, fc.bias


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
