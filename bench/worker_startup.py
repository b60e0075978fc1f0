"""Where one fresh timed worker's start-up goes, in CPU seconds and imports (not wall time:
on a shared machine wall times say more about the neighbours than about the worker).

Starts `python -X importtime -m tcprof.profiler.worker` as the engine does (process/local.py's
command and environment), sends it the `load` of the built-in example `simple` for one arm
(eager, or inductor with its own empty cache folder and the machine's CPU-check folder, as a
cold round gives it), then `exit`; reads the child's CPU time from wait4 and its imports from
`-X importtime`. Reports the CPU seconds, the number of modules imported, the cumulative import
time of the heavy packages, and whether torch._inductor was imported at all.

Run: .venv/bin/python -m bench.worker_startup [--runs 3] [--arm eager|inductor|both]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import tempfile
from pathlib import Path
from typing import Any

from tcprof.profiler.config import ArmSpec, ModelSource, RunConfig
from tcprof.profiler.config.examples import example_path
from tcprof.profiler.folders.home import cpu_check_dir
from tcprof.profiler.process.local import WORKER_COMMAND, worker_env

WATCHED = (
    "torch",
    "torch._dynamo",
    "torch._inductor",
    "torch.optim",
    "sympy",
    "numpy",
    "scipy",
    "psutil",
    "tcprof",
)


def load_command(arm_index: int, cache_dir: str) -> dict[str, Any]:
    cfg = RunConfig(
        ModelSource(str(example_path("simple"))), arms=(ArmSpec("eager"), ArmSpec("inductor"))
    )
    command: dict[str, Any] = {"cmd": "load", "config": cfg.to_dict(), "arm_index": arm_index}
    if cfg.run_arms[arm_index].compiled:
        command.update(cache_dir=cache_dir, cpu_check_dir=str(cpu_check_dir()))
    return command


def one_start(arm_index: int) -> dict[str, Any]:
    """One worker started, loaded and ended: its CPU seconds and its imports."""
    with tempfile.TemporaryDirectory() as cache, tempfile.TemporaryFile() as stderr:
        read_fd, write_fd = os.pipe()
        proc = subprocess.Popen(
            [WORKER_COMMAND[0], "-X", "importtime", *WORKER_COMMAND[1:]],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=stderr,  # a file: -X importtime writes more than a pipe holds
            pass_fds=(read_fd,),
            env=worker_env(None, read_fd),
        )
        os.close(read_fd)
        with os.fdopen(write_fd, "w") as commands:
            commands.write(json.dumps(load_command(arm_index, cache)) + "\n")
            commands.write(json.dumps({"cmd": "exit"}) + "\n")
        events = [json.loads(line) for line in proc.stdout or [] if line.startswith(b"{")]
        _, status, usage = os.wait4(proc.pid, 0)
        stderr.seek(0)
        err = stderr.read().decode(errors="replace")
        proc.returncode = os.waitstatus_to_exitcode(status)
    failed = [e for e in events if e.get("type") == "error"]
    if failed:
        raise SystemExit(f"the worker failed: {failed[0].get('message')}")
    imports = parse_importtime(err)
    return {
        "cpu_s": round(usage.ru_utime + usage.ru_stime, 3),
        "modules": len(imports),
        "inductor_imported": any(name.startswith("torch._inductor") for name in imports),
        "cumulative_s": {name: round(imports.get(name, 0.0), 3) for name in WATCHED},
        "cpu_check_s": next((e["cpu_check"]["seconds"] for e in events if "cpu_check" in e), None),
    }


def parse_importtime(text: str) -> dict[str, float]:
    """Module name -> cumulative seconds of its import (`-X importtime`'s stderr lines)."""
    out: dict[str, float] = {}
    for line in text.splitlines():
        if not line.startswith("import time:") or "cumulative" in line:
            continue
        _, cumulative, name = (part.strip() for part in line[len("import time:") :].split("|"))
        out.setdefault(name, int(cumulative) / 1e6)
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--arm", choices=("eager", "inductor", "both"), default="both")
    args = parser.parse_args()
    arms = {"eager": [0], "inductor": [1], "both": [0, 1]}[args.arm]
    print(f"load average {os.getloadavg()[0]:.1f}, tcprof from {Path(__file__).parent.parent}")
    for index in arms:
        runs = [one_start(index) for _ in range(args.runs)]
        name = ("eager", "inductor")[index]
        cpu = [r["cpu_s"] for r in runs]
        print(f"{name}: CPU {statistics.median(cpu):.2f} s (median of {cpu})")
        print(f"  modules imported: {[r['modules'] for r in runs]}")
        print(f"  torch._inductor imported: {[r['inductor_imported'] for r in runs]}")
        for package in WATCHED:
            values = [r["cumulative_s"][package] for r in runs]
            print(f"  import {package}: {statistics.median(values):.3f} s (cumulative, median)")
        if runs[0]["cpu_check_s"] is not None:
            print(f"  inductor's CPU check: {[r['cpu_check_s'] for r in runs]} s")
    print(f"load average {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
