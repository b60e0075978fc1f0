"""Qt fixtures for the GUI tests: private settings, windows that are always closed, no
ProfilerThread left running, and helpers to run the real engine from the window."""

from __future__ import annotations

from pathlib import Path

import pytest
from PySide6.QtCore import QSettings

from app.main_window import MainWindow
from profiler.config import ArmSpec

FAST_RUN_TIMEOUT_MS = 120_000


@pytest.fixture(autouse=True)
def private_settings(tmp_path_factory):
    """QSettings in a temporary folder: tests never read or write the user's preferences."""
    folder = tmp_path_factory.mktemp("qsettings")
    QSettings.setPath(QSettings.Format.IniFormat, QSettings.Scope.UserScope, str(folder))
    return folder


@pytest.fixture(autouse=True)
def one_replicate(monkeypatch):
    """Windows made in tests default to one round per run: the default's rounds are for users,
    and the engine's tests cover replicates."""
    monkeypatch.setattr("app.measurement_options.DEFAULT_REPLICATES", 1)


@pytest.fixture
def make_window(qtbot):
    """Create windows; each is closed at teardown and must not leave a run behind."""
    windows: list[MainWindow] = []

    def make(**kwargs) -> MainWindow:
        window = MainWindow(**kwargs)
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
    window: MainWindow, arms=("eager", "aot_eager"), batch_sizes="32, 64", warmup=2, steps=10
) -> None:
    window.setup.arms.set_arms([ArmSpec(a) if isinstance(a, str) else a for a in arms])
    window.setup.batch_sizes.setText(batch_sizes)
    window.setup.warmup.setValue(warmup)
    window.setup.steps.setValue(steps)


def write_model(tmp_path: Path, name: str, body: str) -> str:
    path = tmp_path / name
    path.write_text(body, encoding="utf-8")
    return str(path)
