"""Qt fixtures for the GUI tests: private settings, windows that are always closed, no
ProfilerThread left running, and helpers to run the real engine from the window."""

from __future__ import annotations

import gc
import json
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import QSettings

from tcprof.app.window.close_guard import stop_and_close
from tcprof.app.window.main_window import MainWindow
from tcprof.profiler.config import ArmSpec

FAST_RUN_TIMEOUT_MS = 120_000


@pytest.fixture(autouse=True)
def private_settings(tmp_path_factory):
    """QSettings in a temporary folder: tests never read or write the user's preferences."""
    folder = tmp_path_factory.mktemp("qsettings")
    QSettings.setPath(QSettings.Format.IniFormat, QSettings.Scope.UserScope, str(folder))
    return folder


@pytest.fixture(autouse=True)
def collect_the_last_tests_widgets():
    """The garbage a test leaves (closed windows, panels, plot items in reference cycles) is
    collected as it ends, on the main thread with nothing running, not by an automatic
    collection in the middle of the next test's run: once, such a collection blocked inside a
    Qt destructor while a run's thread was saving, and the suite hung."""
    yield
    gc.collect()


@pytest.fixture(autouse=True)
def one_replicate(monkeypatch):
    """Windows made in tests default to one round per run: the default's rounds are for users,
    and the engine's tests cover replicates."""
    monkeypatch.setattr("tcprof.app.setup.measurement_options.START_REPLICATES", 1)


@pytest.fixture
def make_window(qtbot):
    """Create windows; each is closed at teardown and must not leave a run behind."""
    windows: list[MainWindow] = []

    def make(**kwargs) -> MainWindow:
        window = MainWindow(**kwargs)
        # Closing mid-run answers Stop and close: a test that fails mid-run is torn down, not
        # left waiting on a dialog (test_close_guard.py puts the real question).
        window.close_guard.answer = stop_and_close
        qtbot.addWidget(window)
        window.show()
        windows.append(window)
        return window

    yield make
    for window in windows:
        window.close()
        assert window.controller.thread is None, "a ProfilerThread outlived its window"
        if window.background is not None:
            assert not window.background.busy()


@pytest.fixture
def window(make_window):
    return make_window()


def configure_fast(
    window: MainWindow,
    arms=("eager", "aot_eager"),
    batch_sizes="32, 64",
    warmup=2,
    steps=10,
    accuracy=False,
) -> None:
    """A short run from the window; the untimed accuracy pass (a process of its own, about 5 s
    here) only where the test reads its verdict."""
    window.setup.measurement.accuracy.setChecked(accuracy)
    window.setup.arms.set_arms([ArmSpec(a) if isinstance(a, str) else a for a in arms])
    window.setup.batch_sizes.setText(batch_sizes)
    window.setup.warmup.setValue(warmup)
    window.setup.steps.setValue(steps)


def write_model(tmp_path: Path, name: str, body: str) -> str:
    path = tmp_path / name
    path.write_text(body, encoding="utf-8")
    return str(path)


def write_session(
    folder: Path,
    started_at: float,
    median: float = 1.0,
    rss: float = 100.0,
    config: dict[str, Any] | None = None,
    rounds: int = 1,
) -> dict[str, Any]:
    """A minimal session.json (two arms, one batch size) as the engine writes it; config
    entries replace the default ones; `rounds` process medians per row."""
    arms = []
    for i, name in enumerate(("eager", "aot_eager")):
        arms.append(
            {
                "index": i,
                "name": name,
                "backend": name,
                "options": {},
                "results": [
                    {
                        "batch_size": 8,
                        "status": "ok",
                        "median_ms": median * (1 + i),
                        # rounds > 1: a comparison of two sessions has an interval
                        "process_medians_ms": [
                            median * (1 + i) * (1 + 0.01 * (r - rounds // 2)) for r in range(rounds)
                        ],
                        "iqr_ms": 0.001,
                        "peak_rss_mb": rss,
                        "compile_status": "eager" if i == 0 else "compiled",
                        "compile_s": 0.5 * i,
                    }
                ],
            }
        )
    session = {
        "schema_version": 1,
        "status": "completed",
        "started_at": started_at,
        "config": {
            "source": {"path": "/x/simple.py", "model": "SimpleModel"},
            "arms": [{"backend": "eager"}, {"backend": "aot_eager"}],
            "batch_sizes": [8],
            "warmup": 1,
            "steps": 3,
            **(config or {}),
        },
        "baseline": "eager",
        "arms": arms,
        "samples": [
            {"arm": a, "batch_size": 8, "warmup_ms": [median], "ms": [median] * 3, "memory": []}
            for a in ("eager", "aot_eager")
        ],
    }
    folder.mkdir(parents=True)
    (folder / "session.json").write_text(json.dumps(session, indent=1))
    return session
