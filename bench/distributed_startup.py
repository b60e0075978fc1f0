"""Time from Run to the first measured step of a 2-rank arm, and what it is spent on.

Runs `tcprof run --example mlp --nproc 2 --parallel ddp` with one arm (eager, then aot_eager)
and reads the run's events.jsonl: every event carries `t`, seconds since the run started. The
stages, for round 0 of the arm:

  launch        arm_start -> ready: torchrun's launcher process starts (imports torch)
  ranks         ready -> hello: the ranks start, import torch and connect back to the engine
  load          hello -> loaded: process group, model built from the seed, wrapped (DDP)
  first step    loaded -> first_step: compile (aot_eager) and the first, timed-alone step
  warm-up       first_step -> the first measuring phase: warm-up steps
  first block   measuring -> the first measured steps arrive (one discarded step, one block)

A single-process arm of the same model is measured beside it, so the cost of the launcher and
the connection is read as a difference, not guessed. For it, `launch` is the worker process
starting up to its `ready` (sent before torch is imported; the runner starts round 0's workers
as the run starts, so this reads ~0) and `ranks` is its import of torch up to `hello`.

Run: .venv/bin/python -m bench.distributed_startup [--repeats 3]
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

STAGES = ("launch", "ranks", "load", "first step", "warm-up", "first block")


def timeline(events: list[dict]) -> dict[str, float]:
    """The stage durations of arm 0, round 0, from its events (see the module docstring)."""
    at: dict[str, float] = {}
    for e in events:
        if e.get("arm") != 0 or e.get("replicate", 0) != 0:
            continue
        kind, t = e.get("type"), float(e.get("t", 0.0))
        key = kind
        if kind == "phase":
            key = f"phase:{e.get('phase')}"
        elif kind == "steps":
            key = f"steps:{e.get('phase')}"
        at.setdefault(key, t)
    start = at["arm_start"]
    ready = at.get("ready", at["hello"])  # a single process says ready and hello together
    marks = [
        start,
        ready,
        at["hello"],
        at["loaded"],
        at["first_step"],
        at["phase:measuring"],
        at["steps:measure"],
    ]
    return {name: marks[i + 1] - marks[i] for i, name in enumerate(STAGES)} | {
        "total": marks[-1] - start
    }


def run_once(backend: str, distributed: bool) -> dict[str, float]:
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "s"
        args = [
            sys.executable,
            "-m",
            "tcprof.profiler",
            "run",
            "--example",
            "mlp",
            "--arms",
            backend,
        ]
        args += ["--batch-sizes", "32", "--warmup", "3", "--steps", "20", "--blocks", "1"]
        args += ["--replicates", "1", "--no-accuracy", "--quiet", "--out", str(out)]
        if distributed:
            args += ["--nproc", "2", "--parallel", "ddp"]
        subprocess.run(args, check=True, capture_output=True, timeout=600)
        lines = (out / "events.jsonl").read_text().splitlines()
        return timeline([json.loads(line) for line in lines if line.strip()])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    rows: dict[str, list[dict[str, float]]] = {}
    for _ in range(args.repeats):  # alternated, so drift hits every kind alike
        for backend in ("eager", "aot_eager"):
            for distributed in (False, True):
                name = f"{backend}, {'2-rank DDP' if distributed else '1 process'}"
                rows.setdefault(name, []).append(run_once(backend, distributed))
    print(f"median of {args.repeats} runs, seconds (arm_start to the first measured steps)")
    print(f"{'arm':<26}" + "".join(f"{s:>12}" for s in (*STAGES, "total")))
    for name, runs in rows.items():
        med = {k: statistics.median(r[k] for r in runs) for k in (*STAGES, "total")}
        print(f"{name:<26}" + "".join(f"{med[k]:>12.2f}" for k in (*STAGES, "total")))


if __name__ == "__main__":
    main()
