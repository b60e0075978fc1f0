"""The window's Run logs to the team store (TCPROF_STORE) as `tcprof run --store` does, off the
GUI thread, once the session is saved: a store that is down is one line, the session kept."""

from __future__ import annotations

import pytest

from tcprof.app.run.profiler_thread import ProfilerThread
from tcprof.profiler.config import ArmSpec, ModelSource, RunConfig, examples
from tcprof.profiler.run.runner import Runner
from tests.app.conftest import configure_fast
from tests.support.cli import fast_config
from tests.support.fake_worker import FakeWorkers
from tests.support.mlflow_server import free_port

pytestmark = pytest.mark.timeout(120)


def _fake_runner(config, listeners):
    return Runner(config, listeners, worker_factory=FakeWorkers())


def test_a_window_run_with_a_store_that_is_down_is_saved_and_says_so(qtbot, monkeypatch):
    down = f"http://127.0.0.1:{free_port()}"
    monkeypatch.setenv("TCPROF_STORE", down)
    config = RunConfig(
        source=ModelSource(path=str(examples.example_path("simple"))),
        arms=(ArmSpec("eager"), ArmSpec("aot_eager")),
        batch_sizes=(8,),
        **fast_config(),
    )
    thread = ProfilerThread(config, [], _fake_runner, save=True)
    with qtbot.waitSignal(thread.finished, timeout=60_000):
        thread.start()
    thread.wait()
    assert thread.save_error is None and thread.crash is None
    assert (thread.session_dir / "session.json").is_file()
    assert thread.store_warning == (
        f"could not log to the store {down} (ConnectionError: cannot reach the MLflow server at "
        f"{down} (Connection refused)); the session is saved in {thread.session_dir}: "
        f"tcprof log-to mlflow:{down} {thread.session_dir} sends it later"
    )


def test_the_window_says_in_one_line_that_the_store_could_not_take_its_run(
    make_window, qtbot, monkeypatch, private_home
):
    down = f"http://127.0.0.1:{free_port()}"
    monkeypatch.setenv("TCPROF_STORE", down)
    window = make_window(runner_factory=_fake_runner, prewarm=False)
    configure_fast(window)
    with qtbot.waitSignal(window.controller.runEnded, timeout=60_000) as ended:
        window.start_run()
    assert ended.args == ["completed"]
    text = window.notice.text()
    assert text.startswith(f"Warning: could not log to the store {down}"), text
    assert text.count("\n") == 0 and "tcprof log-to" in text
    assert (window.controller.session_dir / "session.json").is_file()
