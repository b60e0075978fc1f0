"""Responsiveness while a run streams: event-loop lateness of a 10 ms precise timer probe.

The real window and relay path are used (ProfilerThread -> RunController -> LiveData -> 30 Hz
plot redraw, log panel, status bar, per-batch summary), fed by SyntheticRunner at a chosen
rate. Probe: a single-shot Qt.PreciseTimer of 10 ms is re-armed each time it fires; lateness is
how much later than 10 ms it fired. Targets: p95 <= 20 ms, p99 <= 50 ms at >= 1,000 steps/s.

    python bench/gui_latency.py [steps_per_s] [steps_per_event] [seconds]
"""

from __future__ import annotations

import os
import sys
import tempfile
import time
from functools import partial
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

import numpy as np  # noqa: E402
from PySide6.QtCore import QEventLoop, QSettings, Qt, QTimer  # noqa: E402
from PySide6.QtWidgets import QApplication  # noqa: E402


def measure(rate: float, per_event: int, seconds: float) -> dict[str, float]:
    from bench.gui_synthetic import SyntheticRunner, show_realistic
    from tcprof.app.window.main_window import MainWindow
    from tcprof.profiler.config import ArmSpec

    factory = partial(
        SyntheticRunner, steps_per_event=per_event, rate_steps_per_s=rate, duration_s=seconds
    )
    window = MainWindow(background=False, runner_factory=factory)
    sizes = show_realistic(window, QApplication.instance())
    window.setup.arms.set_arms([ArmSpec("eager"), ArmSpec("inductor")])
    window.setup.batch_sizes.setText("32")
    window.setup.warmup.setValue(0)
    window.setup.steps.setValue(int(rate * seconds) + 10)
    lateness: list[float] = []
    state = {"armed": 0.0}

    stream = {"points": 0, "first": 0.0, "last": 0.0}

    def fire() -> None:
        now = time.perf_counter()
        points = window.controller.data.points if window.controller.data else 0
        if points != stream["points"]:
            if not stream["first"]:
                stream["first"] = now
            stream["points"], stream["last"] = points, now
        lateness.append((now, (now - state["armed"]) * 1000 - 10.0))
        arm()

    probe = QTimer()
    probe.setSingleShot(True)
    probe.setTimerType(Qt.TimerType.PreciseTimer)
    probe.timeout.connect(fire)

    def arm() -> None:
        if window.controller.running:
            state["armed"] = time.perf_counter()
            probe.start(10)

    loop = QEventLoop()
    window.controller.runEnded.connect(loop.quit)
    window.start_run()
    arm()
    loop.exec()
    elapsed = stream["last"] - stream["first"]
    steps = window.controller.data.points
    redraw = window.plots.last_redraw_s * 1000
    plot_ticks = window.plots.ticks
    window.close()
    # Only probes that fired while steps were streaming in count.
    lat = np.array([late for t, late in lateness if stream["first"] <= t <= stream["last"]])
    return {
        "steps_per_s": steps / elapsed,
        "events": window.controller.events_received,
        "signals": window.controller.signals_received,
        "probes": len(lat),
        "p50": float(np.percentile(lat, 50)),
        "p95": float(np.percentile(lat, 95)),
        "p99": float(np.percentile(lat, 99)),
        "max": float(lat.max()),
        "last_redraw_ms": redraw,
        "sizes": sizes,
        "plot_redraws_per_s": plot_ticks / max(elapsed, 1e-9),
    }


def main() -> None:
    rate = float(sys.argv[1]) if len(sys.argv) > 1 else 2000
    per_event = int(sys.argv[2]) if len(sys.argv) > 2 else 1
    seconds = float(sys.argv[3]) if len(sys.argv) > 3 else 10
    tmp = tempfile.mkdtemp()
    os.environ["TCPROF_HOME"] = tmp
    QSettings.setPath(QSettings.Format.IniFormat, QSettings.Scope.UserScope, tmp)
    QApplication([])
    from tcprof.app.main import configure_process

    configure_process()
    r = measure(rate, per_event, seconds)
    print(
        f"streaming {r['steps_per_s']:,.0f} steps/s for {seconds:g} s ({per_event} step(s) per event, "
        f"{r['events']:,} events relayed in {r['signals']:,} signals), {r['probes']} probes of a 10 ms PreciseTimer:"
    )
    print(f"  {r['sizes']}; {r['plot_redraws_per_s']:.0f} plot redraws/s (3 plots)")
    print(
        f"  lateness p50 {r['p50']:.1f} ms   p95 {r['p95']:.1f} ms   p99 {r['p99']:.1f} ms   max {r['max']:.1f} ms"
    )
    ok = r["p95"] <= 20 and r["p99"] <= 50 and r["steps_per_s"] >= 1000
    print(f"  targets p95 <= 20 ms, p99 <= 50 ms at >= 1,000 steps/s: {'PASS' if ok else 'FAIL'}")


if __name__ == "__main__":
    main()
