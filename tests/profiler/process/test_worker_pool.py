"""Pre-started workers: a run takes warmed workers and measures at once; nothing leaks."""

from __future__ import annotations

import threading
import time

from tcprof.profiler.config import ArmSpec, DebugOptions, ModelSource, RunConfig
from tcprof.profiler.config.examples import example_path
from tcprof.profiler.process.pool import WorkerPool
from tcprof.profiler.run.runner import Runner


def _wait_ready(pool: WorkerPool, count: int, timeout_s: float = 120) -> None:
    deadline = time.monotonic() + timeout_s
    while pool.ready_count() < count:
        assert time.monotonic() < deadline, "workers did not warm up"
        threading.Event().wait(0.1)  # poll: warming up is importing torch in another process


def test_a_run_uses_the_warmed_workers_then_refills(tmp_path):
    pool = WorkerPool(size=2)
    try:
        pool.fill()
        _wait_ready(pool, 2)
        pids = {w.pid for w in pool._ready}
        cfg = RunConfig(
            ModelSource(str(example_path("simple"))),
            arms=(ArmSpec("eager"), ArmSpec("dynamo_eager")),
            batch_sizes=(8,),
            warmup=1,
            steps=4,
            blocks=2,
            replicates=1,
            accuracy=False,
        )
        session = Runner(cfg, pool=pool).run().to_dict()
        assert session["status"] == "completed"
        assert {a["pid"] for a in session["arms"]} == pids
        # how much sooner warmed workers measure is a benchmark's question (bench/engine_startup)
        assert pool.ready_count() == 0
        pool.fill()  # refills for the next run
        assert len(pool._warming) == 2
    finally:
        pool.close()


def test_arms_that_need_their_own_environment_get_fresh_workers(tmp_path):
    pool = WorkerPool(size=1)
    try:
        pool.fill()
        _wait_ready(pool, 1)
        cfg = RunConfig(
            ModelSource(str(example_path("simple"))),
            arms=(ArmSpec("eager"), ArmSpec("dynamo_eager")),
            batch_sizes=(8,),
            warmup=0,
            steps=2,
            blocks=1,
            replicates=1,
            debug=DebugOptions(trace=True),
            artifacts_dir=str(tmp_path),
        )
        Runner(cfg, pool=pool).run()
        assert pool.ready_count() == 0, "the eager arm took the warmed worker"
    finally:
        pool.close()
