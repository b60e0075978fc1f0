"""The cross-thread path: events from the run's thread reach the GUI in batches, all of them."""

from __future__ import annotations

from PySide6.QtCore import QObject, Qt, QThread, Signal

from tcprof.app.plots.live_data import LiveData
from tcprof.app.run.profiler_thread import ProfilerThread
from tcprof.app.run.run_controller import RunController
from tcprof.profiler.config import ArmSpec, ModelSource, RunConfig
from tcprof.profiler.session.fold import SessionFold

N_EVENTS = 50_000


def _config(steps: int = 10) -> RunConfig:
    return RunConfig(
        source=ModelSource("model.py"), arms=(ArmSpec("eager"),), batch_sizes=(8,), steps=steps
    )


class FloodRunner:
    """Stands in for the engine's Runner: publishes N step events as fast as it can."""

    def __init__(self, config, listeners, n=N_EVENTS):
        self.config, self.listeners, self.n = config, listeners, n
        self.session = SessionFold()
        self.cancelled = False

    def cancel(self):
        self.cancelled = True

    def run(self):
        self._publish({"type": "run_start", "config": self.config.to_dict()})
        for i in range(self.n - 2):
            if self.cancelled:
                break
            self._publish(
                {
                    "type": "steps",
                    "arm": 0,
                    "batch_size": 8,
                    "phase": "measure",
                    "start": 1 + i,
                    "ms": [1.0],
                }
            )
        self._publish({"type": "run_end", "status": "stopped" if self.cancelled else "completed"})
        return self.session

    def _publish(self, event):
        self.session.apply(event)
        for listener in self.listeners:
            listener(event)


class BrokenRunner(FloodRunner):
    def run(self):
        raise RuntimeError("boom")


def test_50000_cross_thread_events_reach_the_gui_in_few_signals(qtbot):
    controller = RunController(runner_factory=FloodRunner)
    received = []
    controller.eventsArrived.connect(received.extend)
    with qtbot.waitSignal(controller.runEnded, timeout=60_000) as ended:
        controller.start(_config(steps=N_EVENTS), save=False)
        thread = controller.thread
    assert ended.args == ["completed"]
    assert len(received) == N_EVENTS
    assert thread.events_relayed == N_EVENTS
    assert thread.signals_emitted < N_EVENTS / 10, thread.signals_emitted
    assert controller.data.points == N_EVENTS - 2
    assert controller.thread is None


def test_take_events_batches_and_rearms():
    thread = ProfilerThread(_config(), runner_factory=FloodRunner)
    emitted = []
    thread.eventsReady.connect(lambda: emitted.append(1))
    for i in range(5):
        thread._relay({"type": "log", "text": str(i)})
    assert len(emitted) == 1  # one signal for the whole burst
    assert [e["text"] for e in thread.take_events()] == ["0", "1", "2", "3", "4"]
    thread._relay({"type": "log", "text": "5"})
    assert len(emitted) == 2
    assert thread.take_events() == [{"type": "log", "text": "5"}]


def test_the_lock_is_free_whenever_the_thread_signals_or_the_gui_gets_events():
    """Deadlock freedom by construction: no signal is emitted (so no slot runs) while the
    relay's lock is held, and take_events hands the GUI its batch with the lock released."""
    thread = ProfilerThread(_config(), runner_factory=FloodRunner)
    held = []
    thread.eventsReady.connect(
        lambda: held.append(thread._lock.locked()), Qt.ConnectionType.DirectConnection
    )
    thread._relay({"type": "log", "text": "a"})
    assert held == [False]
    events = thread.take_events()
    assert events and not thread._lock.locked()


def test_an_exception_in_the_run_becomes_an_error_event(qtbot):
    controller = RunController(runner_factory=BrokenRunner)
    received = []
    controller.eventsArrived.connect(received.extend)
    with qtbot.waitSignal(controller.runEnded, timeout=10_000) as ended:
        controller.start(_config(), save=False)
    assert ended.args == ["failed"]
    assert received[-1]["type"] == "error" and "boom" in received[-1]["message"]
    assert "Traceback" in received[-1]["traceback"]


class _Emitter(QObject):
    event = Signal(object)


class _SignalFlood(QThread):
    """One signal per event with a Python payload: the pattern PySide6 6.12 aborted on."""

    def __init__(self, emitter):
        super().__init__()
        self.emitter = emitter

    def run(self):
        for i in range(N_EVENTS):
            self.emitter.event.emit({"type": "steps", "i": i, "ms": [1.0]})


def test_50000_raw_cross_thread_signals_do_not_crash_pyside(qtbot):
    emitter = _Emitter()
    got = []
    emitter.event.connect(lambda e: got.append(e["i"]))
    flood = _SignalFlood(emitter)
    with qtbot.waitSignal(flood.finished, timeout=60_000):
        flood.start()
    flood.wait()
    qtbot.waitUntil(lambda: len(got) == N_EVENTS, timeout=60_000)
    assert got[-1] == N_EVENTS - 1


def test_live_data_places_steps_by_batch_size_phase():
    data = LiveData(["eager", "inductor"], [32, 64], warmup=2, steps=10)
    assert data.boundaries() == [], "sections are laid out as they begin"
    data.apply({"type": "memory", "arm": 0, "batch_size": 32, "step": 3, "rss_mb": 300.0})
    data.apply(
        {
            "type": "steps",
            "arm": 1,
            "batch_size": 64,
            "phase": "warmup",
            "start": 1,
            "ms": [2.0, 4.0],
        }
    )
    x, y = data.arms[1].step_ms.data()
    assert list(x) == [14.0, 15.0] and list(y) == [2.0, 4.0]
    assert list(data.arms[1].throughput.data()[1]) == [32_000.0, 16_000.0]
    assert data.boundaries() == [(0.0, 32), (13.0, 64)]
    assert list(data.arms[0].rss_mb.data()[0]) == [3.0]
    assert data.arms[0].cuda_alloc_mb.n == 0
    data.apply(
        {
            "type": "compile",
            "arm": 1,
            "batch_size": 64,
            "step": 0,
            "kind": "recompile",
            "reason": "size mismatch",
            "seconds": 1.5,
            "frame": "forward",
        }
    )
    marker = data.arms[1].markers[0]
    assert marker.x == 13.0 and marker.kind == "recompile"
    assert "1.50 s" in marker.text and "size mismatch" in marker.text
    data.apply({"type": "steps", "arm": 5, "batch_size": 64, "ms": [1.0]})  # unknown arm: ignored
    data.apply({"type": "steps", "arm": 0, "batch_size": 7, "ms": [1.0]})  # unknown size: ignored
    assert data.points == 2


def test_series_grows_past_its_capacity():
    data = LiveData(["eager"], [8], warmup=0, steps=100_000)
    for start in range(1, 100_001, 1000):
        data.apply({"type": "steps", "arm": 0, "batch_size": 8, "start": start, "ms": [1.0] * 1000})
    x, _ = data.arms[0].step_ms.data()
    assert len(x) == 100_000 and x[-1] == 100_000.0


def test_visible_peaks_keeps_extremes_and_clips_to_the_view():
    import numpy as np

    from tcprof.app.plots.decimation import visible_peaks

    x = np.arange(1_000_000, dtype=float)
    y = np.zeros_like(x)
    y[123_456] = 50.0  # a spike must survive decimation
    xs, ys = visible_peaks(x, y, 0, 1_000_000, max_points=4000)
    assert len(xs) <= 4002 and ys.max() == 50.0 and np.all(np.diff(xs) >= 0)
    xs, ys = visible_peaks(x, y, 1000, 1100)
    assert xs[0] >= 998 and xs[-1] <= 1102 and len(xs) < 110  # only the visible part


def test_a_refused_run_ends_with_its_cause_as_an_error_and_no_folder(qtbot, tmp_path):
    """The engine's check before any arm runs (here: the model file is gone) reaches the
    window as one usage error, for its error banner; nothing ran, no folder is kept."""
    controller = RunController()
    received = []
    controller.eventsArrived.connect(received.extend)
    config = RunConfig(source=ModelSource(str(tmp_path / "gone.py")), arms=(ArmSpec("eager"),))
    with qtbot.waitSignal(controller.runEnded, timeout=30_000) as ended:
        controller.start(config)
    assert ended.args == ["refused"]
    errors = [e for e in received if e["type"] == "error"]
    assert [e["kind"] for e in errors] == ["usage"] and "gone.py" in errors[0]["message"]
    assert controller.session_dir is None
