"""The order in which `make test`'s parallel pass hands its files out, by xdist's own scheduler
(`--dist loadfile`, three processes), with xdist's reorder by number of tests (its default) and
without it (`--no-loadscope-reorder`, the conftest's order: heavy files first): where the
suite's long files fall, and the last files handed out.

Run: .venv/bin/python -m bench.suite_order [collect.txt] (without a file it collects the suite
itself, as `python -m pytest --collect-only -q -m "not serial"` does: a minute here, loaded)
"""

from __future__ import annotations

import argparse
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace

from xdist.scheduler import LoadFileScheduling

LONG = (
    "tests/test_types.py",
    "tests/test_install.py",
    "tests/app/run/test_inductor.py",
    "tests/profiler/distributed/test_distributed.py",
    "tests/profiler/distributed/test_distributed_accuracy.py",
    "tests/profiler/cli/test_cli_script_distributed.py",
    "tests/profiler/worker/test_loop_kinds.py",
)


class _Node:
    def __init__(self, name: str, ids: list[str], handed: list[str]) -> None:
        self.gateway = SimpleNamespace(id=name)
        self.ids, self.handed, self.shutting_down = ids, handed, False

    def send_runtest_some(self, indexes: list[int]) -> None:
        self.handed.append(self.ids[indexes[0]].split("::")[0])

    def shutdown(self) -> None:
        self.shutting_down = True


def order(ids: list[str], reorder: bool, processes: int = 3) -> list[str]:
    config = SimpleNamespace(
        option=SimpleNamespace(loadscopereorder=reorder),
        getvalue=lambda name: [f"{processes}*popen"],
    )
    scheduler = LoadFileScheduling(config)
    handed: list[str] = []
    nodes = [_Node(f"gw{i}", ids, handed) for i in range(processes)]
    for node in nodes:
        scheduler.add_node(node)
    for node in nodes:
        scheduler.add_node_collection(node, ids)
    scheduler.schedule()
    return handed + list(scheduler.workqueue)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("collection", type=Path, nargs="?", help="`pytest --collect-only -q`")
    collection = parser.parse_args().collection
    if collection is not None:
        lines = collection.read_text().splitlines()
    else:
        command = [sys.executable, "-m", "pytest", "--collect-only", "-q", "-m", "not serial"]
        lines = subprocess.run(command, capture_output=True, text=True, check=True).stdout.split(
            "\n"
        )
    ids = [line.strip() for line in lines]
    ids = [i for i in ids if "::" in i]
    for reorder in (True, False):
        files = order(ids, reorder)
        print(f"reorder={reorder}: {len(ids)} tests in {len(files)} files")
        for name in LONG:
            if name in files:
                print(f"  {name}: handed out {files.index(name) + 1} of {len(files)}")
        print("  the last 12:", ", ".join(files[-12:]))


if __name__ == "__main__":
    main()
