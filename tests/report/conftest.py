"""Fixtures for the report tests: one real run (in-process runner, real workers) shared by every
report test that asks for it (read-only), and synthetic sessions folded from hand-made events."""

from __future__ import annotations

import pytest

from profiler import examples
from profiler.config import ArmSpec, ModelSource, RunConfig
from profiler.runner import Runner
from profiler.session_files import open_event_log, write_session_files


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
    log = open_event_log(out_dir)
    try:
        session = Runner(config, listeners=[log]).run()
    finally:
        log.close()
    live = session.to_dict()
    write_session_files(live, out_dir)
    return live, out_dir


@pytest.fixture(scope="session")
def real_run(tmp_path_factory):
    """A finished run of the `simple` example: (live session dict, its output folder)."""
    out = tmp_path_factory.mktemp("real_run")
    return run_real(out)
