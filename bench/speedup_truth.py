"""Does tcprof's speedup hold? Its default run against an independent reference, side by side.

For each example model: the reference (bench/reference_loops.py: plain per-process loops of the
same training step, no tcprof code in the timed path, 5 processes per arm alternated ABBA,
median of process medians) and `tcprof run` with its defaults and the A/A control, alternated:
reference, tcprof, reference, tcprof, reference, tcprof, reference. The machine drifts over
minutes, so each tcprof run is compared with the two references that bracket it. It prints,
per example:

  * each tcprof run's speedup and interval, whether the bracketing references lie inside it,
    and how far it is from their mean;
  * whether the three intervals overlap pairwise;
  * whether the A/A control's interval contains 1.00;
  * the cold and warm compile times with the FX/AOT cache hits and misses that explain them.

Run: .venv/bin/python -m bench.speedup_truth [--examples mlp:64,tiny_gpt:8] [--runs 3]
It takes about 12 minutes per example on a 2-core machine. Run nothing else meanwhile.
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
        cmd = [sys.executable, "-m", "tcprof.profiler", "run", "--example", example]
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

    def reference() -> float:
        speedup = reference_speedup(example, "inductor", batch_size, processes=5)["speedup"]
        print(f"reference: {speedup:.3f}", flush=True)
        return speedup

    refs = [reference()]
    results = []
    for i in range(runs):
        r = tcprof_run(example, batch_size, extra)
        ind, ctl = r["inductor"], r["control"]
        print(
            f"tcprof run {i + 1}: {ind['speedup']:.3f} [{ind['speedup_ci'][0]:.3f}-"
            f"{ind['speedup_ci'][1]:.3f}] ({ind['speedup_method']}, eager process medians "
            f"{[round(m, 3) for m in ind['process_medians_ms']]}), A/A {ctl['speedup']:.3f} "
            f"[{ctl['speedup_ci'][0]:.3f}-{ctl['speedup_ci'][1]:.3f}], compile cold "
            f"{ind['compile_cold_s']:.2f} s warm {ind['compile_warm_s']:.2f} s portable "
            f"{ind['compile_portable_s']} s, caches {ind['compile_cache']}, "
            f"wall {r['wall_s']:.0f} s",
            flush=True,
        )
        results.append(r)
        refs.append(reference())
    lines = []
    cis = [r["inductor"]["speedup_ci"] for r in results]
    for i, r in enumerate(results):
        ind, ctl = r["inductor"], r["control"]
        around = refs[i : i + 2]
        mean = sum(around) / 2
        inside = all(ind["speedup_ci"][0] <= x <= ind["speedup_ci"][1] for x in around)
        a_a = "contains 1" if ctl["speedup_ci"][0] <= 1 <= ctl["speedup_ci"][1] else "MISSES 1"
        lines.append(
            f"| {example} bs {batch_size} | run {i + 1} | {ind['speedup']:.3f} "
            f"[{ind['speedup_ci'][0]:.3f}–{ind['speedup_ci'][1]:.3f}] | "
            f"{around[0]:.3f} / {around[1]:.3f} | {'yes' if inside else 'no'} | "
            f"{(ind['speedup'] - mean) / mean:+.1%} | {ctl['speedup']:.3f} "
            f"[{ctl['speedup_ci'][0]:.3f}–{ctl['speedup_ci'][1]:.3f}] {a_a} | "
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
        "| model | run | tcprof speedup [95% CI] | references before / after | both inside | "
        "off their mean | A/A control | compile cold / warm s | wall |",
        "| --- | --- | --- | --- | --- | --- | --- | --- | --- |",
    ]
    for item in args.examples.split(","):
        name, _, bs = item.partition(":")
        table += check(name, int(bs or 32), args.runs, args.extra.split())
    print("\n" + "\n".join(table))
    return 0


if __name__ == "__main__":
    sys.exit(main())
