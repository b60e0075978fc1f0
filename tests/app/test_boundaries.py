"""The GUI process never imports torch (start-up speed, crash isolation, clean timings)."""

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_importing_the_app_does_not_import_torch():
    code = (
        "import app, app.main, app.main_window, sys; "
        "bad = sorted(m for m in sys.modules if m == 'torch' or m.startswith('torch.')); "
        "assert not bad, bad"
    )
    proc = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=60
    )
    assert proc.returncode == 0, proc.stderr


def test_creating_the_window_does_not_import_torch(tmp_path):
    code = (
        "import sys\n"
        "from PySide6.QtWidgets import QApplication\n"
        "app = QApplication([])\n"
        "from app.main_window import MainWindow\n"
        "w = MainWindow(background=False); w.show(); app.processEvents(); w.close()\n"
        "assert 'torch' not in sys.modules\n"
    )
    proc = subprocess.run(
        [sys.executable, "-c", code],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
        env={**os.environ, "QT_QPA_PLATFORM": "offscreen", "XDG_CONFIG_HOME": str(tmp_path)},
    )
    assert proc.returncode == 0, proc.stderr
