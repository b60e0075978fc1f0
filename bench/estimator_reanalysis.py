"""The known-truth series recorded by bench/known_truth.py, re-estimated from their blocks: what
the interval says when each process's figure is the median of its blocks' medians, and when it
is the median of all its steps pooled.

Each record keeps every measured block (arm, round, busy share of the rest of the machine, the
block's median step); records made since tcprof moved to block medians also keep each process's
pooled-steps median, so both figures come from the same fresh runs. Per round, the paired log
ratio of the two arms' figures; the speedup is their geometric mean, the interval a t interval
at the run's own level with rounds - 1 degrees of freedom, as tcprof's paired interval is
(analysis/stats.py). tcprof's own figures are in the record beside them. Where every run went to
its last look, the stopping rule, which read tcprof's estimator, chose nothing the other would
have changed.

Run: .venv/bin/python -m bench.estimator_reanalysis FILE [FILE ...]
"""

from __future__ import annotations

import argparse
import json
import math
import statistics
from pathlib import Path
from typing import Any

from bench.known_truth_summary import pooled_truth
from tcprof.profiler.analysis.stats import t_quantile

PAIRS = (("repeat2", "eager", "repeat2"), ("eager-control", "eager", "eager-control"))
PAIRS += (("repeat2-control", "repeat2", "repeat2-control"),)


def block_median_interval(
    run: dict[str, Any], base: str, arm: str, table: str = "blocks"
) -> tuple[float, float, float]:
    """The speedup of `arm` over `base` and its interval, each process's figure the median of
    its rows in `table`: its blocks' medians ("blocks") or, where the record keeps it, the
    median of all its steps pooled ("pooled", one row per process)."""
    logs = []
    for rnd in range(int(run["rounds"])):
        b = [x["ms"] for x in run[table] if x["arm"] == base and x["round"] == rnd]
        a = [x["ms"] for x in run[table] if x["arm"] == arm and x["round"] == rnd]
        if a and b:
            logs.append(math.log(statistics.median(b) / statistics.median(a)))
    mean = statistics.fmean(logs)
    half = t_quantile(len(logs) - 1, float(run["level"])) * statistics.stdev(logs)
    half /= math.sqrt(len(logs))
    return math.exp(mean), math.exp(mean - half), math.exp(mean + half)


def figures(points: list[tuple[float, float, float]], truth: float) -> str:
    covered = sum(lo <= truth <= hi for _, lo, hi in points)
    logs = [math.log(p / truth) for p, _, _ in points]
    mean = statistics.fmean(logs)
    half = t_quantile(len(logs) - 1) * statistics.stdev(logs) / math.sqrt(len(logs))
    width = statistics.median(math.sqrt(hi / lo) - 1 for _, lo, hi in points)
    return (
        f"coverage {covered}/{len(points)}; bias {100 * math.expm1(mean):+.1f}% "
        f"[{100 * math.expm1(mean - half):+.1f}%, {100 * math.expm1(mean + half):+.1f}%]; "
        f"median half-width {100 * width:.1f}%"
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("files", nargs="+")
    args = parser.parse_args(argv)
    for name in args.files:
        runs = [json.loads(line) for line in Path(name).read_text().splitlines() if line.strip()]
        runs = [
            r
            for r in runs
            if r.get("blocks") and r.get("rounds") and (r.get("truth_after") or {}).get("turns")
        ]
        if len(runs) < 2:
            print(f"\n{name}: fewer than two runs with blocks, rounds and a truth measured")
            continue
        truth = pooled_truth([r["truth_after"] for r in runs])["repeat2"]
        print(f"\n{name}: {len(runs)} runs, {runs[0]['condition']}, repeat2's truth {truth:.4f}")
        for label, base, arm in PAIRS:
            true = truth if label == "repeat2" else 1.0
            pooled = [(r[label][0], *r[label][1]) for r in runs]
            blocks = [block_median_interval(r, base, arm) for r in runs]
            print(f"  {label:16s} as recorded (tcprof): {figures(pooled, true)}")
            print(f"  {'':16s} median of blocks:     {figures(blocks, true)}")
            if all(r.get("pooled") for r in runs):
                steps = [block_median_interval(r, base, arm, "pooled") for r in runs]
                print(f"  {'':16s} steps pooled:         {figures(steps, true)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
