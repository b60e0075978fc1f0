"""Run to the first step for a script: how long `tcprof run -- python SCRIPT` takes to report
the eager arm's first step, against the same script started by plain `python` and reaching the
end of its own first step (the script's start-up: the interpreter, its imports, its data and
model, and that step), alternated pair by pair.

The goal (issue 21) is at most the script's own start-up plus 0.5 s. Both clocks start when
the command is launched (time.time() before the process starts) and end when the first step
has ended: plain python writes the time its first step ended ($FIRST_STEP_OUT); under tcprof,
the first_step event's time (run_start's wall time plus the event's offset) plus the step's own
duration is already inside it, so the event's time is the end. The difference tcprof − plain
is what tcprof adds: its own start (the CLI, the engine), the worker's start and the hooks.

Run: .venv/bin/python -m bench.script_first_step [--pairs 8] [--width 512] [--threads 1]
Run nothing else meanwhile.
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

SCRIPT = Path(__file__).resolve().parent / "scripts" / "timed_mlp.py"
STEPS = 20  # the script's steps: tcprof ends it at its first measured block's end, or here


def plain(args: argparse.Namespace) -> float:
    """Seconds from launching `python SCRIPT` to the end of its first step."""
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "first.json"
        env = {**os.environ, "FIRST_STEP_OUT": str(out), "OMP_NUM_THREADS": str(args.threads)}
        cmd = [sys.executable, str(SCRIPT), "--steps", str(STEPS), "--width", str(args.width)]
        launched = time.time()
        subprocess.run(cmd, env=env, check=True)
        return float(json.loads(out.read_text())["first_step_end"]) - launched


def under_tcprof(args: argparse.Namespace) -> float:
    """Seconds from launching `tcprof run --arms eager -- python SCRIPT` to its first_step."""
    with tempfile.TemporaryDirectory() as tmp:
        cmd = [sys.executable, "-m", "tcprof.profiler", "run", "--arms", "eager"]
        cmd += ["--warmup", "1", "--steps", "4", "--blocks", "1", "--replicates", "1"]
        cmd += ["--threads", str(args.threads), "--no-accuracy", "--quiet", "--out", tmp]
        cmd += ["--", "python", str(SCRIPT), "--steps", str(STEPS), "--width", str(args.width)]
        launched = time.time()
        subprocess.run(cmd, capture_output=True, text=True, check=True)
        events = [json.loads(line) for line in (Path(tmp) / "events.jsonl").open()]
        start = next(e for e in events if e["type"] == "run_start")
        first = next(e for e in events if e["type"] == "first_step")
        return float(start["wall_time"]) - float(start["t"]) + float(first["t"]) - launched


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pairs", type=int, default=8)
    parser.add_argument("--width", type=int, default=512)
    parser.add_argument("--threads", type=int, default=1)
    args = parser.parse_args()
    added = []
    for pair in range(args.pairs):
        order = ("plain", "tcprof") if pair % 2 == 0 else ("tcprof", "plain")
        got = {who: plain(args) if who == "plain" else under_tcprof(args) for who in order}
        added.append(got["tcprof"] - got["plain"])
        print(
            f"pair {pair + 1}: plain {got['plain']:.2f} s, tcprof {got['tcprof']:.2f} s, "
            f"added {added[-1]:+.2f} s",
            flush=True,
        )
    print(
        f"tcprof adds a median {statistics.median(added):+.2f} s "
        f"(range {min(added):+.2f} to {max(added):+.2f}) to the script's own start-up and first "
        f"step, over {len(added)} pairs (goal: at most +0.50 s)"
    )


if __name__ == "__main__":
    main()
