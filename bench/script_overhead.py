"""The harness's overhead on a script: the eager arm's median step under tcprof against the
same script run by plain `python`, timing itself with perf_counter around each step (its first
forward to its optimizer step's end, what tcprof calls compute), alternated pair by pair.

The figure is the ratio tcprof / plain of the medians, per pair and its median over pairs; the
goal (issue 21) is within 2% for steps of 1 ms and more. Plain python gets the same thread count
(--threads) and the same steps; its first `skip` steps (tcprof's first step, warm-up and
discarded steps) are left out of its median.

Run: .venv/bin/python -m bench.script_overhead [--pairs 5] [--width 512] [--threads 1]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

SCRIPT = Path(__file__).resolve().parent / "scripts" / "timed_mlp.py"


def plain(args: argparse.Namespace, skip: int, total: int) -> float:
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "times.json"
        env = {**os.environ, "TIMES_OUT": str(out), "OMP_NUM_THREADS": str(args.threads)}
        code = (
            f"import torch, runpy, sys; torch.set_num_threads({args.threads}); "
            f"sys.argv = [{str(SCRIPT)!r}, '--steps', '{total}', '--width', '{args.width}']; "
            f"runpy.run_path({str(SCRIPT)!r}, run_name='__main__')"
        )
        subprocess.run([sys.executable, "-c", code], env=env, check=True)
        return statistics.median(json.loads(out.read_text())[skip:])


def under_tcprof(args: argparse.Namespace, total: int) -> float:
    with tempfile.TemporaryDirectory() as tmp:
        command = [
            sys.executable,
            "-m",
            "tcprof.profiler",
            "run",
            "--arms",
            "eager",
            "--warmup",
            str(args.warmup),
            "--steps",
            str(args.steps),
            "--blocks",
            str(args.blocks),
            "--replicates",
            "1",
            "--threads",
            str(args.threads),
            "--no-accuracy",
            "--quiet",
            "--out",
            tmp,
            "--json",
            "--",
            "python",
            str(SCRIPT),
            "--steps",
            str(total),
            "--width",
            str(args.width),
        ]
        result = subprocess.run(command, capture_output=True, text=True, check=True)
        return float(json.loads(result.stdout)["arms"][0]["results"][0]["median_ms"])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--pairs", type=int, default=5)
    parser.add_argument("--width", type=int, default=512)
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--warmup", type=int, default=5)
    parser.add_argument("--steps", type=int, default=100)
    parser.add_argument("--blocks", type=int, default=5)
    args = parser.parse_args()
    blocks = max(1, min(args.blocks, args.steps))
    skip = 1 + args.warmup + blocks
    total = skip + args.steps
    ratios = []
    for pair in range(args.pairs):
        order = ("plain", "tcprof") if pair % 2 == 0 else ("tcprof", "plain")
        got = {}
        for who in order:
            got[who] = plain(args, skip, total) if who == "plain" else under_tcprof(args, total)
        ratio = got["tcprof"] / got["plain"]
        ratios.append(ratio)
        print(
            f"pair {pair + 1}: plain {got['plain']:.3f} ms, tcprof {got['tcprof']:.3f} ms, "
            f"ratio {ratio:.3f}",
            flush=True,
        )
    print(
        f"median ratio tcprof/plain {statistics.median(ratios):.3f} "
        f"(range {min(ratios):.3f}-{max(ratios):.3f}) over {len(ratios)} pairs"
    )


if __name__ == "__main__":
    main()
