"""A script's start-up as each way of running it reads it: `tcprof run` (a fresh engine
process) and the window's ProfilerThread (the same RecordedRun, its body run in this process),
each with fresh worker interpreters (TCPROF_FORK_WORKERS=0, a user's default for timed arms)
and with forked ones ("all", the test suite's). Prints each arm's `startup_s` per round from
its first_step event. The arms should agree with each other and across the ways: a figure
that moves with how its worker was started is not the script's.

Run: .venv/bin/python -m bench.script_startup [--runs 2] [--script tests/support/scripts/relu_net.py]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

ARMS = "eager; aot_eager"
SHORT = ["--warmup", "1", "--steps", "4", "--blocks", "2", "--replicates", "2", "--threads", "1"]
SHORT += ["--min-block-ms", "0", "--no-accuracy", "--quiet"]


def startups(events_file: Path) -> dict[int, list[float]]:
    out: dict[int, list[float]] = {}
    for line in events_file.read_text().splitlines():
        event = json.loads(line)
        if event.get("type") == "first_step" and "startup_s" in event:
            out.setdefault(int(event["arm"]), []).append(event["startup_s"])
    return out


def cli_run(script: Path, out: Path) -> dict[int, list[float]]:
    cmd = [sys.executable, "-m", "tcprof.profiler", "run", "--arms", ARMS, *SHORT]
    cmd += ["--out", str(out), "--", "python", str(script)]
    subprocess.run(cmd, check=True, cwd=ROOT, capture_output=True)
    return startups(out / "events.jsonl")


def window_run(script: Path, out: Path) -> dict[int, list[float]]:
    from tcprof.app.run.profiler_thread import ProfilerThread
    from tcprof.profiler.cli.main import build_parser, split_command
    from tcprof.profiler.recording.options import config_from_options

    argv, command = split_command(["run", "--arms", ARMS, *SHORT, "--", "python", str(script)])
    args = build_parser().parse_args(argv)
    args.script_command = command
    os.environ["TCPROF_HOME"] = str(out)  # the window chooses its folder under the home
    thread = ProfilerThread(config_from_options(vars(args)), save=True)
    thread.run()  # the thread's body, here: the same recorded run the window starts
    (log,) = out.glob("**/events.jsonl")
    return startups(log)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=2)
    parser.add_argument("--script", default="tests/support/scripts/relu_net.py")
    args = parser.parse_args()
    script = (ROOT / args.script).resolve()
    for mode in ("0", "all"):
        os.environ["TCPROF_FORK_WORKERS"] = mode
        for run in range(args.runs):
            for name, way in (("cli", cli_run), ("window", window_run)):
                with tempfile.TemporaryDirectory(prefix="tcprof-startup-") as folder:
                    found = way(script, Path(folder) / "s")
                text = "  ".join(f"arm {a}: {v}" for a, v in sorted(found.items()))
                print(f"fork={mode:3} run {run + 1} {name:6} start-up s  {text}", flush=True)


if __name__ == "__main__":
    main()
