"""How wide is the default interval on the project's MLP example? (issue 19's width figure)

Runs `tcprof run --example mlp` with every default (eager against inductor, batch size 32, the
default rounds, steps, blocks and accuracy check) `--runs` times, seeds 0, 1, ..., and prints each
run's speedup with its 95% interval, the interval's half-width (the geometric half-width,
sqrt(hi / lo) - 1), and the median half-width over the runs. Each run compiles into its own
caches as tcprof's default does, so the runs are alike.

Run: .venv/bin/python -m bench.interval_width [--runs 6] [--example mlp] [-- more run options]
About two minutes per run on a 2-core machine. Run nothing else meanwhile.
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


def one_run(example: str, seed: int, extra: list[str]) -> list[tuple[int, float, float, float]]:
    """(batch size, speedup, low, high) of each compiled row of one default run."""
    with tempfile.TemporaryDirectory(prefix="tcprof-width-") as out:
        cmd = [sys.executable, "-m", "tcprof.profiler", "run", "--example", example]
        cmd += ["--seed", str(seed), "--quiet", "--out", out, *extra]
        proc = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True)
        if proc.returncode != 0:
            raise RuntimeError(f"tcprof run failed ({proc.returncode}):\n{proc.stderr[-2000:]}")
        session = json.loads((Path(out) / "session.json").read_text())
    rows = []
    for arm in session["arms"]:
        for row in arm["results"]:
            if row.get("speedup") is not None and row.get("speedup_ci"):
                lo, hi = row["speedup_ci"]
                rows.append((row["batch_size"], row["speedup"], lo, hi))
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=6)
    parser.add_argument("--example", default="mlp")
    parser.add_argument("--first-seed", type=int, default=0)
    parser.add_argument("extra", nargs="*", help="more `tcprof run` options (after --)")
    args = parser.parse_args()
    t0 = time.time()
    widths = []
    for seed in range(args.first_seed, args.first_seed + args.runs):
        for bs, point, lo, hi in one_run(args.example, seed, args.extra):
            half = ((hi / lo) ** 0.5 - 1) * 100
            widths.append(half)
            print(
                f"seed {seed}, bs {bs}: {point:.3f}x [{lo:.3f}-{hi:.3f}], half-width {half:.1f}%",
                flush=True,
            )
    print(
        f"\n{args.example}: median half-width {statistics.median(widths):.1f}% over "
        f"{len(widths)} intervals (min {min(widths):.1f}%, max {max(widths):.1f}%); "
        f"took {(time.time() - t0) / 60:.1f} min"
    )


if __name__ == "__main__":
    main()
