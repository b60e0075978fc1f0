"""Cold start: process start to the main window shown (target <= 1.5 s).

Each sample starts a fresh interpreter that imports the app, builds the real MainWindow (with
its background environment probe and model inspection started, as at a user's launch), shows
it and reports the wall time of the window's first paint (`MainWindow.first_painted_at`). Offscreen
platform by default; set QT_QPA_PLATFORM=xcb (with a display) to measure a real screen.
"""

from __future__ import annotations

import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CHILD = r"""
import sys, time
from PySide6.QtCore import QTimer
from PySide6.QtWidgets import QApplication
app = QApplication(sys.argv)
from tcprof.app.window.main_window import MainWindow
w = MainWindow()
w.show()
def check():
    if w.first_painted_at is None:
        return
    timer.stop()
    print(f"SHOWN {w.first_painted_at:.6f} torch={'torch' in sys.modules}", flush=True)
    w.close()
    app.quit()
timer = QTimer()
timer.timeout.connect(check)
timer.start(1)
app.exec()
"""


def one_sample() -> float:
    with tempfile.TemporaryDirectory() as tmp:
        env = {
            **os.environ,
            "QT_QPA_PLATFORM": os.environ.get("QT_QPA_PLATFORM", "offscreen"),
            "XDG_CONFIG_HOME": tmp,
            "TCPROF_HOME": tmp,
        }
        t0 = time.time()
        out = subprocess.run(
            [sys.executable, "-c", CHILD],
            cwd=ROOT,
            env=env,
            capture_output=True,
            text=True,
            timeout=120,
        ).stdout
    line = next(x for x in out.splitlines() if x.startswith("SHOWN"))
    assert "torch=False" in line, "the GUI imported torch"
    return float(line.split()[1]) - t0


def main() -> None:
    samples = [one_sample() for _ in range(int(sys.argv[1]) if len(sys.argv) > 1 else 5)]
    print(f"cold start (process start -> main window shown), {len(samples)} runs:")
    print(
        f"  median {statistics.median(samples):.3f} s   min {min(samples):.3f} s   max {max(samples):.3f} s"
    )
    print(f"  target <= 1.5 s: {'PASS' if max(samples) <= 1.5 else 'FAIL'}")


if __name__ == "__main__":
    main()
