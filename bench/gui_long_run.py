"""Long runs: redraw time and GUI memory with 1,000,000 plotted steps (targets < 30 ms, < 400 MB).

Steps are fed through LiveData (the plots' buffers) in batches of 1,000 per arm as a worker
would send them, the real LivePlots redraws (setData + a forced paint of the shown window) after
every 50,000 steps, and the process's RSS is read at the end.

    python bench/gui_long_run.py [total_steps] [arms]
"""

from __future__ import annotations

import os
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

import numpy as np  # noqa: E402
import psutil  # noqa: E402
from PySide6.QtCore import QSettings  # noqa: E402
from PySide6.QtWidgets import QApplication  # noqa: E402


def main() -> None:
    total = int(sys.argv[1]) if len(sys.argv) > 1 else 1_000_000
    n_arms = int(sys.argv[2]) if len(sys.argv) > 2 else 2
    tmp = tempfile.mkdtemp()
    QSettings.setPath(QSettings.Format.IniFormat, QSettings.Scope.UserScope, tmp)
    app = QApplication([])
    from bench.gui_synthetic import show_realistic
    from tcprof.app.plots.live_data import LiveData
    from tcprof.app.window.main_window import MainWindow

    window = MainWindow(background=False)
    sizes = show_realistic(window, app)
    per_arm = total // n_arms
    data = LiveData([f"arm{i}" for i in range(n_arms)], [32, 64], warmup=0, steps=per_arm // 2)
    window.plots.start(data)
    window.plots.timer.stop()  # redraws are driven (and timed) here
    rng = np.random.default_rng(0)
    chunk = 1000
    redraws = []
    fed = 0
    for bs in (32, 64):
        for start in range(1, per_arm // 2 + 1, chunk):
            for arm in range(n_arms):
                ms = (0.5 + 0.1 * arm + 0.05 * rng.standard_normal(chunk)).tolist()
                data.apply(
                    {
                        "type": "steps",
                        "arm": arm,
                        "batch_size": bs,
                        "phase": "measure",
                        "start": start,
                        "ms": ms,
                    }
                )
                if start % 100 == 1:
                    data.apply(
                        {
                            "type": "memory",
                            "arm": arm,
                            "batch_size": bs,
                            "step": start,
                            "rss_mb": 300.0 + arm,
                        }
                    )
                fed += chunk
            if fed % 50_000 < chunk * n_arms:
                t0 = time.perf_counter()
                window.plots.refresh()
                window.plots.view.viewport().repaint()
                redraws.append((data.points, (time.perf_counter() - t0) * 1000))
    app.processEvents()
    final = []
    for _ in range(10):  # a new batch then a redraw, at the full length
        for arm in range(n_arms):
            data.apply(
                {
                    "type": "steps",
                    "arm": arm,
                    "batch_size": 64,
                    "phase": "measure",
                    "start": per_arm // 2,
                    "ms": [0.5],
                }
            )
        t0 = time.perf_counter()
        window.plots.refresh()
        window.plots.view.viewport().repaint()
        final.append((time.perf_counter() - t0) * 1000)
    rss = psutil.Process().memory_info().rss / 2**20
    print(
        f"{data.points:,} plotted steps ({n_arms} arms), step time, throughput and memory curves:"
    )
    print(f"  {sizes}")
    print(f"  redraw at the full length: median {np.median(final):.1f} ms, max {max(final):.1f} ms")
    print(
        f"  redraw while growing: max {max(r for _, r in redraws):.1f} ms over {len(redraws)} redraws"
    )
    print(f"  GUI process RSS: {rss:.0f} MB")
    ok = max(final) < 30 and rss < 400
    print(f"  targets redraw < 30 ms, RSS < 400 MB: {'PASS' if ok else 'FAIL'}")
    window.close()


if __name__ == "__main__":
    main()
