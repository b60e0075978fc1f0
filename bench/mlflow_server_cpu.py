"""CPU of the test suite's `mlflow server` (tests/support/mlflow_server.py): its whole process
tree's CPU seconds to its first health answer and over HOLD seconds idle after it, and which
processes it runs. With `--baseline FILE` (another version of that module, e.g. `git show
REV:tests/support/mlflow_server.py > FILE`) the two are interleaved, so a loaded machine's
drift falls on both alike.

Run: .venv/bin/python -m bench.mlflow_server_cpu [--hold 30] [--repeat 2] [--baseline FILE]
"""

from __future__ import annotations

import argparse
import importlib.util
import tempfile
import time
from pathlib import Path
from types import ModuleType

import psutil

from tests.support.paths import ROOT


def _module(path: Path, name: str) -> ModuleType:
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _tree_cpu(pid: int) -> tuple[float, list[str]]:
    root = psutil.Process(pid)
    total, names = 0.0, []
    for proc in [root, *root.children(recursive=True)]:
        try:
            t = proc.cpu_times()
            total += t.user + t.system + t.children_user + t.children_system
            names.append(" ".join(proc.cmdline()[1:3]))
        except psutil.Error:
            continue
    return total, names


def measure(module: ModuleType, hold_s: float) -> str:
    began = time.monotonic()
    server = module.MlflowServer(Path(tempfile.mkdtemp(prefix="mlflow-cpu-")))
    try:
        server.wait_ready()
        ready_s = time.monotonic() - began
        at_ready, _ = _tree_cpu(server.process.pid)
        time.sleep(hold_s)
        after, names = _tree_cpu(server.process.pid)
    finally:
        server.stop()
    load = open("/proc/loadavg").read().split()[0]
    return (
        f"ready in {ready_s:.1f} s, {at_ready:.1f} CPU-s to ready, +{after - at_ready:.1f} "
        f"CPU-s over {hold_s:g} s idle, {len(names)} processes (load {load}): {names}"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--hold", type=float, default=30.0)
    parser.add_argument("--repeat", type=int, default=2)
    parser.add_argument("--baseline", type=Path)
    args = parser.parse_args()
    versions = {"this": _module(ROOT / "tests/support/mlflow_server.py", "server_this")}
    if args.baseline:
        versions = {"baseline": _module(args.baseline, "server_baseline"), **versions}
    for _ in range(args.repeat):
        for name, module in versions.items():
            print(f"{name}: {measure(module, args.hold)}", flush=True)


if __name__ == "__main__":
    main()
