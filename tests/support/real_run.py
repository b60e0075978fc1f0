"""One real run (in-process runner, real workers), recorded as `tcprof run` records it, for the
tests that only read its session."""

from __future__ import annotations

from tcprof.profiler.config import ArmSpec, ModelSource, RunConfig, examples
from tcprof.profiler.run.recorded import RecordedRun


def run_real(out_dir, example="simple", arms=("eager", "aot_eager"), batch_sizes=(8, 16)):
    """Run the engine as `tcprof run` does; returns (live session dict, out_dir)."""
    config = RunConfig(
        source=ModelSource(path=str(examples.example_path(example))),
        arms=tuple(ArmSpec(a) for a in arms),
        batch_sizes=tuple(batch_sizes),
        warmup=1,
        steps=8,
        blocks=2,
        replicates=1,
        min_block_ms=0.0,
    )
    recorded = RecordedRun(config, out_dir)
    live = recorded.run().to_dict()
    saved = recorded.save(live)
    assert saved.problem is None, saved.problem
    return live, out_dir
