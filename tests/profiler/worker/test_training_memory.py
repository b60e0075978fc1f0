"""training_step_memory: hand-computable peaks, a real training step, and eager vs aot_eager."""

from __future__ import annotations

import json
import math

import pytest
import torch

from tcprof.profiler.worker.training_memory import MB, training_step_memory

FLOATS = 1_000_000  # 4,000,000 bytes = 3.815 MiB
TOL = 0.01  # MiB: room for a few stray scalar allocations


def _profiler_on() -> bool:
    return torch.autograd.profiler._is_profiler_enabled or torch.autograd._profiler_enabled()


def test_single_temporary_allocation_is_its_size():
    def step(_):
        a = torch.empty(FLOATS, dtype=torch.float32)
        del a

    r = training_step_memory(step, None, [])
    assert r["step_peak_mb"] == pytest.approx(4 * FLOATS / MB, abs=TOL)
    assert r["step_end_mb"] == pytest.approx(0.0, abs=TOL)
    assert r["persistent_mb"] == 0.0


def test_overlapping_allocations_sum_and_sequential_ones_take_the_max():
    def overlapping(_):
        a = torch.empty(FLOATS)
        b = torch.empty(FLOATS // 2)
        del a, b

    def sequential(_):
        a = torch.empty(FLOATS)
        del a
        b = torch.empty(FLOATS // 2)
        del b

    both = training_step_memory(overlapping, None, [])["step_peak_mb"]
    one_then_other = training_step_memory(sequential, None, [])["step_peak_mb"]
    assert both == pytest.approx(6 * FLOATS / MB, abs=TOL)
    assert one_then_other == pytest.approx(4 * FLOATS / MB, abs=TOL)


def test_memory_kept_past_the_step_shows_in_step_end_and_persistent_dedups():
    kept: list[torch.Tensor] = []
    r = training_step_memory(lambda _: kept.append(torch.empty(FLOATS)), None, [])
    assert r["step_end_mb"] == pytest.approx(r["step_peak_mb"], abs=TOL)
    t = torch.empty(FLOATS)
    # a tensor, a view of it and the same tensor again: one storage
    assert training_step_memory(lambda _: None, None, [t, t[:10], t])[
        "persistent_mb"
    ] == pytest.approx(4 * FLOATS / MB, abs=0.001)


def _linear_step(compile_backend: str | None):
    torch.manual_seed(0)
    model = torch.nn.Linear(256, 256)
    opt = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
    fwd = torch.compile(model, backend=compile_backend) if compile_backend else model
    x, y = torch.randn(64, 256), torch.randn(64, 256)

    def step(batch):
        loss = torch.nn.functional.mse_loss(fwd(batch[0]), batch[1])
        loss.backward()
        opt.step()
        opt.zero_grad()

    for _ in range(2):  # warm-up: momentum buffers exist, compile done
        step((x, y))
    return training_step_memory(step, (x, y), [model, opt, x, y])


PARAMS = (256 * 256 + 256) * 4
ACT = 64 * 256 * 4  # one [64, 256] float32 tensor


def test_real_linear_sgd_step():
    r = _linear_step(None)
    # weights + bias, their momentum buffers, x and y (grads are None between steps)
    assert r["persistent_mb"] == pytest.approx((2 * PARAMS + 2 * ACT) / MB, abs=0.001)
    # at least the output and the weight/bias grads live together; at most 2x that
    low = (ACT + PARAMS) / MB
    assert low <= r["step_peak_mb"] <= 2 * low
    assert r["step_end_mb"] == pytest.approx(0.0, abs=TOL)
    assert r["steady_peak_mb"] == pytest.approx(r["persistent_mb"] + r["step_peak_mb"], abs=0.002)


def test_aot_eager_step_is_of_the_same_order_as_eager():
    eager = _linear_step(None)
    compiled = _linear_step("aot_eager")
    assert math.isfinite(compiled["step_peak_mb"]) and compiled["step_peak_mb"] > 0
    assert eager["step_peak_mb"] / 3 <= compiled["step_peak_mb"] <= 3 * eager["step_peak_mb"]
    assert compiled["persistent_mb"] == eager["persistent_mb"]


def test_no_profiler_left_running_and_result_is_json():
    r = training_step_memory(lambda _: torch.ones(10), None, [torch.nn.Linear(2, 2)])
    assert not _profiler_on()
    assert json.loads(json.dumps(r)) == r

    def boom(_):
        raise ValueError("user step failed")

    with pytest.raises(ValueError):
        training_step_memory(boom, None, [])
    assert not _profiler_on()
