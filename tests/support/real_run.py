"""One real run (in-process runner, real workers), recorded as `tcprof run` records it, for the
tests that only read its session."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

from tcprof.profiler.config import ArmSpec, ModelSource, RunConfig, examples
from tcprof.profiler.folders.files import read_session
from tcprof.profiler.report.export import REPORT_FORMATS, export_reports
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


def shared_real_run(tmp_path_factory) -> tuple[dict, Path]:
    """One real run of `run_real`'s defaults for the whole `make test` pass, shared by every
    test process that asks (the report and tracker tests only read it): the first process runs
    it under a file lock in the pass's common temporary folder, the others wait and read what
    it saved. Returns (live session dict, as JSON holds it; the run's folder, with its reports)."""
    from filelock import FileLock

    root = tmp_path_factory.getbasetemp()
    if os.environ.get("PYTEST_XDIST_WORKER"):  # each process's basetemp sits in the pass's own
        root = root.parent
    shared = root / "shared-real-run"
    shared.mkdir(exist_ok=True)
    out = shared / "20250101-000000-simple"
    live_file = shared / "live.json"
    with FileLock(str(shared / "lock")):
        if not live_file.exists():
            shutil.rmtree(out, ignore_errors=True)  # a process that failed before left it
            out.mkdir()
            live, _ = run_real(out)
            export_reports(read_session(out), out, REPORT_FORMATS)
            live_file.write_text(json.dumps(live))
    return json.loads(live_file.read_text()), out
