"""`make test`'s parallel pass hands its files out in the order tests/conftest.py gives them:
the files with tests of tens of seconds first, so that none of them is left to run alone at the
end of the pass while the other processes have nothing left to do. xdist's own scheduler is run
here on a made-up collection, with the options of the Makefile's command."""

from __future__ import annotations

import argparse
import shlex
from pathlib import Path
from types import SimpleNamespace

import pytest
from xdist.scheduler import LoadFileScheduling

from tests.conftest import pytest_collection_modifyitems
from tests.support.paths import ROOT


def _parallel_pass() -> argparse.Namespace:
    """The xdist options of the Makefile's first pass (the one that is not `-m serial`)."""
    (line,) = [
        line
        for line in (ROOT / "Makefile").read_text().splitlines()
        if " pytest " in line and "not serial" in line
    ]
    words = shlex.split(line)
    parser = argparse.ArgumentParser(add_help=False)
    parser.add_argument("-n", type=int, required=True)
    parser.add_argument("--dist", required=True)
    # xdist reorders a loadfile pass's files by their number of tests unless told not to
    parser.add_argument("--no-loadscope-reorder", dest="reorder", action="store_false")
    options, _ = parser.parse_known_args(words[words.index("pytest") + 1 :])
    return options


class _Item:
    def __init__(self, file: str, name: str, heavy: bool) -> None:
        self.path = Path(file)
        self.nodeid = f"{file}::{name}"
        self.heavy = heavy

    def get_closest_marker(self, name: str) -> object | None:
        return object() if self.heavy and name == "slow" else None


class _Node:
    """What the scheduler needs of a worker: it is sent the indexes of a file's tests."""

    def __init__(self, name: str, handed: list[int]) -> None:
        self.gateway = SimpleNamespace(id=name)
        self.handed = handed
        self.shutting_down = False

    def send_runtest_some(self, indexes: list[int]) -> None:
        self.handed.append(indexes[0])

    def shutdown(self) -> None:
        self.shutting_down = True


def _files_in_the_order_handed_out(options: argparse.Namespace, collection: list[str]) -> list:
    config = SimpleNamespace(
        option=SimpleNamespace(loadscopereorder=options.reorder),
        getvalue=lambda name: [f"{options.n}*popen"] if name == "tx" else None,
    )
    scheduler = LoadFileScheduling(config)
    handed: list[int] = []
    nodes = [_Node(f"gw{i}", handed) for i in range(options.n)]
    for node in nodes:
        scheduler.add_node(node)
    for node in nodes:
        scheduler.add_node_collection(node, collection)
    scheduler.schedule()
    first = [collection[i].split("::")[0] for i in handed]
    return first + list(scheduler.workqueue)  # the rest go out in the queue's order


@pytest.mark.timeout(30)
def test_the_parallel_pass_hands_out_the_heavy_files_first():
    options = _parallel_pass()
    assert options.dist == "loadfile"  # a file's tests share its module fixtures' runs
    # ten quick files of four tests, then (last collected, as tests/test_types.py is) one file
    # holding a single test of tens of seconds
    items = [
        _Item(f"tests/test_quick_{i}.py", f"test_{j}", False) for i in range(10) for j in range(4)
    ]
    items.append(_Item("tests/test_heavy.py", "test_cold_run", True))
    pytest_collection_modifyitems(None, items)
    order = _files_in_the_order_handed_out(options, [item.nodeid for item in items])
    assert order[0] == "tests/test_heavy.py", order
    assert order[1:] == [f"tests/test_quick_{i}.py" for i in range(10)]
