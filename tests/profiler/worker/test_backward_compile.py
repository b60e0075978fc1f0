"""AOTAutograd compiles the backward lazily, at the first backward, and torch times it apart
from the frame: the compile record carries it (`backward_s`), so it is not lost in "other"."""

from __future__ import annotations

import pytest

torch = pytest.importorskip("torch")

from tcprof.profiler.config import DebugOptions  # noqa: E402
from tcprof.profiler.worker.dynamo_insight import CompileWatcher  # noqa: E402


@pytest.mark.timeout(120)
def test_the_lazy_backward_compile_is_folded_into_its_frames_record():
    torch._dynamo.reset()
    watcher = CompileWatcher(DebugOptions(), None)
    model = torch.nn.Sequential(torch.nn.Linear(8, 8), torch.nn.ReLU(), torch.nn.Linear(8, 1))
    compiled = torch.compile(model, backend="aot_eager")
    compiled(torch.randn(4, 8)).sum().backward()
    records = watcher.take_compiles()
    assert len(records) == 1, records
    assert records[0]["seconds"] > 0
    assert records[0]["backward_s"] is not None and records[0]["backward_s"] > 0
    # an inference call compiles no backward
    torch._dynamo.reset()
    with torch.no_grad():
        torch.compile(model, backend="aot_eager")(torch.randn(4, 8))
    assert [r["backward_s"] for r in watcher.take_compiles()] == [None]
    torch._dynamo.reset()
