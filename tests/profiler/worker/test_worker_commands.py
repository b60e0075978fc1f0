"""The worker's command loop, in this process on a real event pipe: every command ends with
`done`, and what the worker cannot understand is a `protocol` error, never a silent wait."""

from __future__ import annotations

import json
import os
import queue
from pathlib import Path

import pytest

from tcprof.profiler.config import ArmSpec, ModelSource, RunConfig
from tcprof.profiler.protocol.wire import decode
from tcprof.profiler.worker.arm_worker import ArmWorker
from tcprof.profiler.worker.channel import EventChannel
from tcprof.profiler.worker.commands import serve
from tests.support.cli import MODELS
from tests.support.fake_worker import FakeWorkers


def _serve(commands: list[dict | str]) -> tuple[int, list[dict]]:
    """Feed command lines to a fresh worker; its exit code and every event it wrote."""
    read_fd, write_fd = os.pipe()
    channel = EventChannel(write_fd)
    lines = [c if isinstance(c, str) else json.dumps(c) for c in commands]
    try:
        code = serve(ArmWorker(channel), channel, [line + "\n" for line in lines])
    finally:
        os.close(write_fd)
    with os.fdopen(read_fd, "rb") as stream:
        return code, [decode(line) for line in stream]


def _load_command(path: Path | str) -> dict:
    config = RunConfig(ModelSource(str(path)), arms=(ArmSpec("eager"),), threads=None)
    return {"cmd": "load", "config": config.to_dict(), "arm_index": 0}


@pytest.mark.parametrize(
    ("line", "message"),
    [
        ({"cmd": "dance"}, "unknown command 'dance'"),
        ("{not json", "not JSON"),
        ("[1, 2]", "must be a JSON object"),
        ({"cmd": "measure", "batch_size": 8}, "command 'measure' lacks steps"),
    ],
)
def test_what_the_worker_cannot_understand_is_a_protocol_error(line, message):
    code, events = _serve([line, {"cmd": "exit"}])
    assert code == 0
    error, done, bye = events
    assert error["type"] == "error" and error["kind"] == "protocol" and error["fatal"] is True
    assert message in error["message"]
    assert done["type"] == "done" and done["failed"] is True
    assert bye["type"] == "bye"


def test_a_model_that_cannot_load_is_the_users_error_and_the_worker_keeps_serving(tmp_path):
    missing = tmp_path / "nowhere.py"
    _, events = _serve([_load_command(missing), {"cmd": "environment"}])
    kinds = [e["type"] for e in events]
    assert kinds == ["hello", "phase", "error", "done", "hello", "done"]
    error = events[2]
    assert error["kind"] == "load" and "model file not found" in error["message"]
    assert events[3] == {"type": "done", "cmd": "load", "failed": True}
    assert events[-1] == {"type": "done", "cmd": "environment"}


def test_load_builds_the_arm_and_says_what_it_loaded():
    _, events = _serve([_load_command(MODELS / "relu_model.py"), {"cmd": "exit"}])
    assert [e["type"] for e in events] == ["hello", "phase", "loaded", "done", "bye"]
    loaded = events[2]
    assert loaded["model"] == "ReluNet()"
    assert loaded["params"] == 8 * 16 + 16 + 16 + 1
    assert loaded["input"] == "(B, 8) float" and loaded["input_source"] == "inferred"
    assert loaded["cache_dir"] is None


def test_a_command_that_fails_inside_the_worker_reports_a_runtime_error_with_its_traceback():
    _, events = _serve([{"cmd": "prepare", "batch_size": 8}])  # nothing loaded yet
    error, done = events
    assert error["kind"] == "runtime" and error["fatal"] is True
    assert "Traceback" in error["traceback"]
    assert done == {"type": "done", "cmd": "prepare", "failed": True}


def test_the_scripted_fake_worker_answers_as_this_worker_does():
    """The runner's schedule tests trust tests/support/fake_worker.py: the same events, in the
    same order, with the same fields, for an eager arm's load, prepare, measure and finish."""
    config = RunConfig(
        ModelSource(str(MODELS / "relu_model.py")),
        arms=(ArmSpec("eager"),),
        batch_sizes=(4,),
        warmup=1,
        steps=2,
        blocks=1,
        min_block_ms=0,
        threads=None,
    )
    commands = [
        {"cmd": "load", "config": config.to_dict(), "arm_index": 0},
        {"cmd": "prepare", "batch_size": 4},
        {"cmd": "measure", "batch_size": 4, "steps": 2, "block": 0, "peers": []},
        {"cmd": "finish", "batch_size": 4, "detail": True},
        {"cmd": "exit"},
    ]
    _, real = _serve(commands)
    inbox: queue.Queue = queue.Queue()
    fake = FakeWorkers()(0, inbox, {})
    for command in commands:
        fake.send(command)
    scripted: list[dict] = []
    while not inbox.empty():
        scripted.append(inbox.get_nowait()[1])
    assert [e["type"] for e in scripted] == ["ready", *(e["type"] for e in real), "_eof"]
    for mine, theirs in zip(scripted[1:-1], real, strict=True):
        assert set(mine) == set(theirs), mine["type"]
