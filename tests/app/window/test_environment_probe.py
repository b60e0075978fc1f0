"""The environment probe hands the window the worker's hello read once into the typed
`Environment` (and caches it), or a `Failure` saying why the probe failed (not cached)."""

from __future__ import annotations

import pytest

import tcprof.app.window.environment_probe as probe
from tcprof.app.common.background import BackgroundCalls, Failure
from tcprof.profiler.model.context import Environment

pytestmark = pytest.mark.timeout(30)


def _ask(qtbot, monkeypatch, answer: object) -> Environment | Failure:
    monkeypatch.setattr(probe, "_cached", None)
    monkeypatch.setattr(probe, "probe_environment", lambda: answer)
    calls = BackgroundCalls()
    got: list[Environment | Failure] = []
    probe.request_environment(calls, got.append)
    qtbot.waitUntil(lambda: bool(got), timeout=10_000)
    calls.shutdown()
    return got[0]


def test_a_hello_is_the_typed_environment_and_is_kept(qtbot, monkeypatch):
    hello = {"type": "hello", "torch": "2.5.1", "devices": ["cpu"], "backends": ["eager"]}
    env = _ask(qtbot, monkeypatch, hello)
    assert isinstance(env, Environment)
    assert (env.torch, env.devices, env.backends) == ("2.5.1", ("cpu",), ("eager",))
    assert probe.cached_environment() is env
    again: list[Environment | Failure] = []
    probe.request_environment(BackgroundCalls(), again.append)
    assert again == [env]  # at once, from the cache


def test_a_failed_probe_is_a_failure_and_is_not_kept(qtbot, monkeypatch):
    failed = _ask(qtbot, monkeypatch, {"error": {"kind": "probe", "message": "no torch"}})
    assert isinstance(failed, Failure) and failed.message == "no torch"
    assert probe.cached_environment() is None
