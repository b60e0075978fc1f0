"""The GUI process never imports torch (start-up speed, crash isolation, clean timings), and
the window is opened by the launcher in app/, never by the engine. The import rules themselves
are import-linter's contracts (pyproject.toml, proven in tests/test_architecture.py); these
check what a running interpreter actually loads."""

import os
import subprocess
import sys
from pathlib import Path

from tests.support.paths import ROOT

QT = ("PySide6", "shiboken6", "pyqtgraph")


def _python(code: str, tmp_path: Path, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, *(["-c", code] if code else []), *args],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
        env={**os.environ, "QT_QPA_PLATFORM": "offscreen", "XDG_CONFIG_HOME": str(tmp_path)},
    )


def test_creating_the_window_does_not_import_torch(tmp_path):
    code = (
        "import sys\n"
        "from PySide6.QtWidgets import QApplication\n"
        "app = QApplication([])\n"
        "import tcprof.app.launcher, tcprof.app.main\n"
        "from tcprof.app.window.main_window import MainWindow\n"
        "w = MainWindow(background=False); w.show(); app.processEvents(); w.close()\n"
        "assert 'torch' not in sys.modules\n"
    )
    proc = _python(code, tmp_path)
    assert proc.returncode == 0, proc.stderr


def test_the_launcher_hands_a_command_to_the_engine_without_loading_qt(tmp_path):
    code = (
        "import sys\n"
        "from tcprof.app.launcher import main\n"
        "code = main(['examples'])\n"
        f"qt = sorted(m for m in sys.modules if m.split('.')[0] in {QT!r})\n"
        "print('exit', code, 'qt', qt)\n"
    )
    proc = _python(code, tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.startswith("simple ")
    assert proc.stdout.splitlines()[-1] == "exit 0 qt []"


def test_the_engine_alone_says_where_the_window_is(tmp_path):
    for args in ([], ["gui"]):
        proc = _python("", tmp_path, "-m", "tcprof.profiler", *args)
        assert proc.returncode == 2, proc.stderr
        assert "`tcprof` (no arguments, or `tcprof gui`) or `python -m tcprof.app`" in proc.stderr
