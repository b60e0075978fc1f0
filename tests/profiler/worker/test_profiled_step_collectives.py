"""The CPU training-memory step runs under torch.profiler, which around gloo's collectives
corrupts the heap now and then (a DDP rank died of SIGABRT in CI): a DDP rank's profiled step
skips its gradient all-reduce, an FSDP rank on CPU is not profiled, a single process is as
before."""

from __future__ import annotations

import contextlib
from types import SimpleNamespace

import pytest
import torch
import torch.distributed as dist

from tcprof.profiler.worker.untimed import FSDP_ON_CPU, UntimedPasses

pytestmark = pytest.mark.timeout(120)


@pytest.fixture
def gloo_group():
    store = dist.HashStore()
    dist.init_process_group("gloo", store=store, rank=0, world_size=1)
    try:
        yield
    finally:
        dist.destroy_process_group()


def _passes(model, parallel):
    return SimpleNamespace(model=model, parallel=parallel)


def _without(model, parallel):
    return UntimedPasses._profiled_step_without_collectives(_passes(model, parallel))  # type: ignore[arg-type]


def test_a_single_process_profiles_its_whole_step():
    assert isinstance(_without(torch.nn.Linear(2, 2), None), contextlib.nullcontext)


def test_a_ddp_rank_profiles_its_step_without_the_all_reduce(gloo_group):
    ddp = torch.nn.parallel.DistributedDataParallel(torch.nn.Linear(4, 2))
    for model in (ddp, torch.compile(ddp, backend="eager")):
        with _without(model, {"parallel": "ddp"}):
            assert ddp.require_backward_grad_sync is False, "no all-reduce in the profiled step"
        assert ddp.require_backward_grad_sync is True


def test_an_fsdp_rank_on_cpu_is_not_profiled(tmp_path):
    passes = SimpleNamespace(
        model=torch.nn.Linear(2, 2), parallel={"parallel": "fsdp"}, device=torch.device("cpu")
    )
    passes._profiled_step_without_collectives = lambda: _without(passes.model, passes.parallel)
    figure = UntimedPasses._steady_memory(passes, {})  # type: ignore[arg-type]
    assert figure == {"steady_peak_mb": None, "steady_method": f"unavailable: {FSDP_ON_CPU}"}
