"""Fixtures for the report tests: one real run (in-process runner, real workers) shared by every
report test that asks for it (read-only), and synthetic sessions folded from hand-made events."""

from __future__ import annotations

import pytest

from profiler import examples, outputs
from profiler.config import ArmSpec, ModelSource, RunConfig
from profiler.runner import Runner


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
    )
    log = outputs.EventLog(out_dir / "events.jsonl")
    try:
        session = Runner(config, listeners=[log]).run()
    finally:
        log.close()
    outputs.write_all(session, out_dir)
    return session.to_dict(), out_dir


@pytest.fixture(scope="session")
def real_run(tmp_path_factory):
    """A finished run of the `simple` example: (live session dict, its output folder)."""
    out = tmp_path_factory.mktemp("real_run")
    return run_real(out)
