"""A worker of another protocol version is refused at `hello` with an error that names both
versions, instead of its events being misread (once remote hosts run their own install)."""

from __future__ import annotations

from tcprof.profiler.config import ArmSpec, ModelSource, RunConfig
from tcprof.profiler.config.examples import example_path
from tcprof.profiler.protocol import events
from tcprof.profiler.protocol.events import PROTOCOL_VERSION
from tcprof.profiler.protocol.wire import check_hello, screen_hello
from tcprof.profiler.run.runner import Runner


def test_a_hello_of_this_version_passes_unchanged():
    hello = {"type": "hello", "protocol": PROTOCOL_VERSION, "torch": "2.13.0"}
    assert check_hello(hello) is None
    assert screen_hello(hello) is hello
    other = {"type": "loaded", "protocol": PROTOCOL_VERSION + 1}
    assert screen_hello(other) is other, "only hello is checked"


def test_a_hello_of_another_version_becomes_a_fatal_protocol_error():
    theirs = PROTOCOL_VERSION + 1
    message = check_hello({"type": "hello", "protocol": theirs})
    assert message == (
        f"worker speaks protocol {theirs}, this tcprof speaks {PROTOCOL_VERSION}: "
        "install the same tcprof on both sides"
    )
    assert screen_hello({"type": "hello", "protocol": theirs}) == {
        "type": "error",
        "kind": "protocol",
        "message": message,
        "fatal": True,
    }


def test_a_hello_without_a_version_is_read_as_version_1(monkeypatch):
    monkeypatch.setattr(events, "PROTOCOL_VERSION", 2)
    assert check_hello({"type": "hello"}) == (
        "worker speaks protocol 1, this tcprof speaks 2: install the same tcprof on both sides"
    )


def test_the_runner_refuses_a_real_worker_of_another_version(monkeypatch):
    """The real worker states its version in hello; this side is made to speak another."""
    monkeypatch.setattr(events, "PROTOCOL_VERSION", PROTOCOL_VERSION + 1)
    config = RunConfig(
        ModelSource(str(example_path("simple"))),
        arms=(ArmSpec("eager"),),
        batch_sizes=(8,),
        warmup=0,
        steps=2,
        blocks=1,
        replicates=1,
        min_block_ms=0,
        accuracy=False,
    )
    seen: list[dict] = []
    session = Runner(config, listeners=[seen.append]).run()
    assert not [e for e in seen if e["type"] == "hello"], "the hello is replaced by the error"
    errors = [e for e in seen if e["type"] == "error"]
    assert [(e["kind"], e["fatal"], e["arm"]) for e in errors] == [("protocol", True, 0)]
    assert f"worker speaks protocol {PROTOCOL_VERSION}, " in errors[0]["message"]
    assert session.status == "completed_with_errors"
    assert session.arms[0].error["kind"] == "protocol"
    assert not [e for e in seen if e["type"] in ("first_step", "steps")], "nothing was measured"
