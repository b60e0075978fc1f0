"""Does tcprof's speedup hold? Its default run against an independent reference, side by side.

For each example model: the reference (bench/reference_loops.py: plain per-process loops of the
same training step, no tcprof code in the timed path, 5 processes per arm alternated ABBA,
median of process medians), then `tcprof run` with its defaults and the A/A control, three
times back to back, then the reference again (the machine drifts; the two reference runs
bracket tcprof's). It prints, per example:

  * each tcprof run's speedup and interval, and whether both references lie inside it and
    within 5% of it;
  * whether the three intervals overlap pairwise;
  * whether the A/A control's interval contains 1.00;
  * the cold and warm compile times with the FX/AOT cache hits and misses that explain them.

Run: .venv/bin/python -m bench.speedup_truth [--examples mlp:64,tiny_gpt:8] [--runs 3]
It takes about 8 minutes per example on a 2-core machine. Run nothing else meanwhile.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from bench.reference_loops import reference_speedup

ROOT = Path(__file__).resolve().parent.parent


def tcprof_run(example: str, batch_size: int, extra: list[str]) -> dict:
    with tempfile.TemporaryDirectory(prefix="tcprof-truth-") as out:
        cmd = [sys.executable, "-m", "profiler", "run", "--example", example]
        cmd += ["--arms", "eager,inductor", "--batch-sizes", str(batch_size), "--control"]
        cmd += ["--quiet", "--out", out, *extra]
        t0 = time.perf_counter()
        proc = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True)
        wall = time.perf_counter() - t0
        if proc.returncode != 0:
            raise RuntimeError(f"tcprof run failed ({proc.returncode}):\n{proc.stderr[-2000:]}")
        session = json.loads((Path(out) / "session.json").read_text())
    rows = {a["name"]: a["results"][0] for a in session["arms"]}
    return {"wall_s": wall, "inductor": rows["inductor"], "control": rows["eager-control"]}


def overlap(a: list[float], b: list[float]) -> bool:
    return a[0] <= b[1] and b[0] <= a[1]


def check(example: str, batch_size: int, runs: int, extra: list[str]) -> list[str]:
    print(f"\n## {example}, batch size {batch_size}", flush=True)
    ref_before = reference_speedup(example, "inductor", batch_size, processes=5)
    print(f"reference (before): {ref_before['speedup']:.3f}", flush=True)
    results = []
    for i in range(runs):
        r = tcprof_run(example, batch_size, extra)
        ind, ctl = r["inductor"], r["control"]
        print(
            f"tcprof run {i + 1}: {ind['speedup']:.3f} [{ind['speedup_ci'][0]:.3f}-"
            f"{ind['speedup_ci'][1]:.3f}] ({ind['speedup_method']}, process medians eager "
            f"{ind['process_medians_ms']}), A/A {ctl['speedup']:.3f} [{ctl['speedup_ci'][0]:.3f}"
            f"-{ctl['speedup_ci'][1]:.3f}], compile cold {ind['compile_cold_s']:.2f} s "
            f"warm {ind['compile_warm_s']:.2f} s portable "
            f"{ind['compile_portable_s'] if ind['compile_portable_s'] is None else round(ind['compile_portable_s'], 2)} s, "
            f"caches {ind['compile_cache']}, wall {r['wall_s']:.0f} s",
            flush=True,
        )
        results.append(r)
    ref_after = reference_speedup(example, "inductor", batch_size, processes=5)
    print(f"reference (after): {ref_after['speedup']:.3f}", flush=True)
    refs = [ref_before["speedup"], ref_after["speedup"]]
    ref = (refs[0] + refs[1]) / 2
    lines = []
    cis = [r["inductor"]["speedup_ci"] for r in results]
    for i, r in enumerate(results):
        ind = r["inductor"]
        inside = all(ind["speedup_ci"][0] <= x <= ind["speedup_ci"][1] for x in refs)
        off = abs(ind["speedup"] - ref) / ref
        lines.append(
            f"| {example} bs {batch_size} | run {i + 1} | {ind['speedup']:.3f} "
            f"[{ind['speedup_ci'][0]:.3f}–{ind['speedup_ci'][1]:.3f}] | "
            f"{refs[0]:.3f} / {refs[1]:.3f} | {'yes' if inside else 'no'} | {off:.1%} | "
            f"{r['control']['speedup']:.3f} [{r['control']['speedup_ci'][0]:.3f}–"
            f"{r['control']['speedup_ci'][1]:.3f}] "
            f"{'contains 1' if r['control']['speedup_ci'][0] <= 1 <= r['control']['speedup_ci'][1] else 'MISSES 1'} | "
            f"{ind['compile_cold_s']:.1f} / {ind['compile_warm_s']:.1f} | {r['wall_s']:.0f} s |"
        )
    pairwise = all(overlap(a, b) for i, a in enumerate(cis) for b in cis[i + 1 :])
    lines.append(f"intervals overlap pairwise: {'yes' if pairwise else 'NO'}")
    return lines


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--examples", default="mlp:64,tiny_gpt:8")
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--extra", default="", help="more tcprof run arguments, space-separated")
    args = ap.parse_args(argv)
    table = [
        "| model | run | tcprof speedup [95% CI] | reference before / after | reference inside | "
        "off the mean reference | A/A control | compile cold / warm s | wall |",
        "| --- | --- | --- | --- | --- | --- | --- | --- | --- |",
    ]
    for item in args.examples.split(","):
        name, _, bs = item.partition(":")
        table += check(name, int(bs or 32), args.runs, args.extra.split())
    print("\n" + "\n".join(table))
    return 0


if __name__ == "__main__":
    sys.exit(main())
