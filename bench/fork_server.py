"""Workers forked from the fork server against workers started fresh, alternated run by run:
the run's wall time, and that nothing measured moves (each arm's step median, the speedup, the
compile cost cold and warm).

Each pair runs the same `tcprof run` twice, TCPROF_FORK_WORKERS=all then 0 (the order swapped
every other pair), and prints each figure's ratio forked/fresh with the spread over pairs.

The sharper check is `--aa`: one run whose arms are forked and whose A/A twins (`control`
both) are spawned fresh, so each twin's figure against its arm, with its interval, is the
effect of forking measured in the same rounds, on the same machine state (truth: 1.00).

Run: .venv/bin/python -m bench.fork_server [--pairs 4] [--arms eager,aot_eager]
     .venv/bin/python -m bench.fork_server --aa [--replicates 6]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from tcprof.profiler.config.examples import example_path


def one_run(args: list[str], fork: bool) -> dict[str, Any]:
    with tempfile.TemporaryDirectory() as out:
        env = {**os.environ, "TCPROF_FORK_WORKERS": "all" if fork else "0"}
        t0 = time.perf_counter()
        proc = subprocess.run(
            [sys.executable, "-m", "tcprof.profiler", "run", *args, "--quiet", "--out", out],
            env=env,
            capture_output=True,
            text=True,
        )
        wall = time.perf_counter() - t0
        if proc.returncode != 0:
            raise SystemExit(f"run failed ({proc.returncode}): {proc.stderr[-2000:]}")
        session = json.loads((Path(out) / "session.json").read_text())
    figures: dict[str, Any] = {"wall_s": wall}
    for arm in session["arms"]:
        row = arm["results"][0]
        figures[f"{arm['name']} median ms"] = row.get("median_ms")
        if arm.get("backend") != "eager":
            figures[f"{arm['name']} speedup"] = row.get("speedup")
            figures[f"{arm['name']} compile cold s"] = row.get("compile_cold_s")
            figures[f"{arm['name']} compile warm s"] = row.get("compile_warm_s")
    return figures


def forked_against_fresh_twins(model: str, replicates: int, fresh: str = "twins") -> None:
    """Arms forked, their A/A twins fresh, in one run: the twins' speedups over their arms
    (fresh="arms": the other way round; "none": all forked, a plain A/A)."""
    from tcprof.profiler.config import ArmSpec, ModelSource, RunConfig
    from tcprof.profiler.process.local import WorkerProcess
    from tcprof.profiler.run import runner

    cfg = RunConfig(
        ModelSource(model),
        arms=(ArmSpec("eager"), ArmSpec("aot_eager")),
        batch_sizes=(32,),
        replicates=replicates,
        accuracy=False,
        control="both",
    )
    twins = {i for i, spec in enumerate(cfg.run_arms) if spec.name.endswith("-control")}
    chosen = {"twins": twins, "arms": set(range(len(cfg.run_arms))) - twins, "none": set()}
    fresh_ones = chosen[fresh]

    def start(index: int, inbox: Any, env: dict[str, str], timed: bool = True) -> WorkerProcess:
        if index in fresh_ones:  # any variable of its own: the fork server does not serve it
            env = {**env, "TCPROF_BENCH_FRESH": "1"}
        worker = WorkerProcess(index, inbox, extra_env=env)
        assert worker.forked == (index not in fresh_ones)
        return worker

    os.environ["TCPROF_FORK_WORKERS"] = "all"  # timed arms too, unless given their own variable
    runner.start_worker_process = start  # type: ignore[assignment]
    session = runner.Runner(cfg).run().to_dict()
    print(f"fresh: {fresh}; A/A twins against their arms, {replicates} rounds ({model}):")
    for arm in session["arms"]:
        for row in arm["results"]:
            if row.get("aa_of"):
                ci = row.get("aa_ci") or [None, None]
                print(
                    f"  {arm['name']:22s} against {row['aa_of']}: "
                    f"{row.get('aa_speedup'):.3f} [{ci[0]:.3f}-{ci[1]:.3f}]"
                )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--pairs", type=int, default=4)
    parser.add_argument("--model", default=str(example_path("mlp")))
    parser.add_argument("--arms", default="eager,aot_eager")
    parser.add_argument("--replicates", default="3")
    parser.add_argument("--aa", action="store_true", help="forked arms against fresh twins")
    parser.add_argument("--fresh", choices=("twins", "arms", "none"), default="twins")
    args = parser.parse_args()
    if args.aa:
        forked_against_fresh_twins(args.model, int(args.replicates), args.fresh)
        return
    run_args = [args.model, "--arms", args.arms, "--replicates", args.replicates]
    run_args += ["--batch-sizes", "32", "--no-accuracy"]
    ratios: dict[str, list[float]] = {}
    for pair in range(args.pairs):
        order = (True, False) if pair % 2 == 0 else (False, True)
        got = {fork: one_run(run_args, fork) for fork in order}
        for key, forked in got[True].items():
            fresh = got[False].get(key)
            if isinstance(forked, (int, float)) and isinstance(fresh, (int, float)) and fresh:
                ratios.setdefault(key, []).append(forked / fresh)
        print(
            f"pair {pair + 1}: wall forked {got[True]['wall_s']:.1f} s, "
            f"fresh {got[False]['wall_s']:.1f} s",
            flush=True,
        )
    print(f"\nforked / fresh over {args.pairs} alternated pairs ({args.model}, {args.arms}):")
    for key, values in ratios.items():
        lo, hi = min(values), max(values)
        print(f"  {key:32s} median {statistics.median(values):.3f}  [{lo:.3f}-{hi:.3f}]")


if __name__ == "__main__":
    main()
