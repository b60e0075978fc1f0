"""Inductor's once-per-machine CPU check out of every cold compile: before against after.

Before, every cold and portable compile of a run started from an empty cache folder and paid
inductor's CPU check (a library built and loaded per vector instruction set, tens of seconds on
a loaded machine) inside its compile figure. After, the check runs once per machine in tcprof's
home folder and each fresh folder starts with its files only (worker/cpu_check.py). The same
default run of the built-in example, alternating before and after (B A A B ...) so the load of
a shared machine hits both alike; the after side's home folder has the check done by one first
run, whose cost is reported on its own (what a new machine pays once).

Each run's line goes to bench/results/cpu_check_ab.jsonl as soon as it ends.

Run: .venv/bin/python -m bench.cpu_check_ab [--before-commit f040fd2] [--after-commit HEAD]
[--pairs 2]
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
RESULTS = ROOT / "bench" / "results" / "cpu_check_ab.jsonl"


def checkout(commit: str, into: Path) -> Path:
    """The tree at `commit`, unpacked (no worktree: nothing of the repository changes)."""
    into.mkdir(parents=True, exist_ok=True)
    archive = subprocess.run(
        ["git", "-C", str(ROOT), "archive", commit], check=True, capture_output=True
    ).stdout
    subprocess.run(["tar", "-x", "-C", str(into)], input=archive, check=True)
    return into


def one_run(tree: Path, home: Path, example: str) -> dict:
    """`tcprof run --example EXAMPLE` with every default, from `tree`; its wall time and the
    inductor arm's compile figures."""
    with tempfile.TemporaryDirectory(prefix="tcprof-cpu-check-ab-") as out:
        cmd = [sys.executable, "-m", "tcprof.profiler", "run", "--example", example]
        cmd += ["--quiet", "--out", out]
        env = {**_env(), "PYTHONPATH": str(tree), "TCPROF_HOME": str(home)}
        t0 = time.perf_counter()
        proc = subprocess.run(cmd, cwd=tree, env=env, capture_output=True, text=True)
        wall = time.perf_counter() - t0
        session = json.loads((Path(out) / "session.json").read_text())
    arm = next(a for a in session["arms"] if a["name"] == "inductor")
    row = arm["results"][0]
    return {
        "rc": proc.returncode,
        "wall_s": wall,
        "run_s": (session.get("timeline") or {}).get("wall_s"),
        "compile_cold_s": row.get("compile_cold_s"),
        "compile_portable_s": row.get("compile_portable_s"),
        "compile_warm_s": row.get("compile_warm_s"),
        "speedup": row.get("speedup"),
        "cpu_check": (arm.get("model") or {}).get("cpu_check"),
    }


def _env() -> dict[str, str]:
    import os

    env = dict(os.environ)
    env.pop("TORCHINDUCTOR_VEC_ISA_OK", None)  # users' runs do the check
    return env


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--before-commit", default="f040fd2")
    parser.add_argument("--after-commit", default="HEAD")
    parser.add_argument("--pairs", type=int, default=2)
    parser.add_argument("--example", default="simple")
    args = parser.parse_args()
    work = Path(tempfile.mkdtemp(prefix="tcprof-cpu-check-ab-"))
    trees = {
        side: checkout(c, work / side)
        for side, c in (("before", args.before_commit), ("after", args.after_commit))
    }
    homes = {side: work / f"home-{side}" for side in trees}
    RESULTS.parent.mkdir(parents=True, exist_ok=True)

    def record(side: str, result: dict) -> dict:
        line = {"side": side, "example": args.example, "at": time.time(), **result}
        with RESULTS.open("a") as f:
            f.write(json.dumps(line) + "\n")
        print(json.dumps(line), flush=True)
        return line

    first = record("after-first", one_run(trees["after"], homes["after"], args.example))
    runs: dict[str, list[dict]] = {"before": [], "after": []}
    for pair in range(args.pairs):
        order = ("before", "after") if pair % 2 == 0 else ("after", "before")
        for side in order:
            runs[side].append(record(side, one_run(trees[side], homes[side], args.example)))
    print("\nside      wall s (each)              cold compile s (each)")
    for side, lines in runs.items():
        walls = [round(r["wall_s"], 1) for r in lines]
        colds = [round(r["compile_cold_s"] or 0, 2) for r in lines]
        print(f"{side:8}  {walls} median {statistics.median(walls)}  {colds}")
    check = first.get("cpu_check") or {}
    print(f"the check, first run on this machine: {check.get('first_s')} s")


if __name__ == "__main__":
    main()
