"""The inspection's step probe: a few eager steps at two small batch sizes, and the leaf
modules, so a model never run before is priced from itself."""

from __future__ import annotations

import pytest

torch = pytest.importorskip("torch")

from tcprof.profiler.worker import inputs  # noqa: E402
from tcprof.profiler.worker.step_probe import SIZES, probe_step  # noqa: E402


@pytest.mark.timeout(60)
def test_the_probe_times_each_size_and_counts_leaf_modules():
    model = torch.nn.Sequential(torch.nn.Linear(16, 64), torch.nn.ReLU(), torch.nn.Linear(64, 4))
    plan = inputs.plan_inputs(model, None, "16")
    before = [p.detach().clone() for p in model.parameters()]
    threads = torch.get_num_threads()
    probe = probe_step(model, None, plan)
    assert torch.get_num_threads() == threads, "timed with one thread too, then put back"
    assert probe["modules"] == 3 and "error" not in probe
    assert set(probe["ms_at"]) == set(SIZES) and all(v > 0 for v in probe["ms_at"].values())
    assert all(torch.equal(a, b) for a, b in zip(before, model.parameters(), strict=True))
    assert probe["pace_ms"] > 0


@pytest.mark.timeout(60)
def test_the_probe_counts_the_operators_a_training_step_dispatches():
    """Twice the layers, about twice the operators: the compile's guess grows with them."""

    def net(layers: int) -> torch.nn.Module:
        return torch.nn.Sequential(
            *[m for _ in range(layers) for m in (torch.nn.Linear(16, 16), torch.nn.Tanh())]
        )

    small, large = net(2), net(4)
    ops = [probe_step(m, None, inputs.plan_inputs(m, None, "16"))["ops"] for m in (small, large)]
    assert 10 < ops[0] < ops[1]
    assert 1.6 < ops[1] / ops[0] < 2.4


@pytest.mark.timeout(60)
def test_a_model_that_cannot_step_leaves_the_probe_empty_not_failed():
    class Broken(torch.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.layer = torch.nn.Linear(4, 4)

        def forward(self, x):
            raise RuntimeError("no")

    model = Broken()
    probe = probe_step(model, None, inputs.plan_inputs(model, None, "4"))
    assert probe["ms_at"] == {} and "RuntimeError: no" in probe["error"]


@pytest.mark.timeout(60)
def test_a_step_that_cannot_run_under_a_dispatch_mode_is_still_timed_without_a_count(monkeypatch):
    from tcprof.profiler.worker import step_probe

    class Refuses(step_probe._OpCount):
        def __torch_dispatch__(self, func, types, args=(), kwargs=None):
            raise RuntimeError("not under a mode")

    monkeypatch.setattr(step_probe, "_OpCount", Refuses)
    model = torch.nn.Sequential(torch.nn.Linear(8, 8), torch.nn.Tanh())
    probe = probe_step(model, None, inputs.plan_inputs(model, None, "8"))
    assert "ops" not in probe and "error" not in probe
    assert set(probe["ms_at"]) == set(SIZES)
