"""A stand-in for the engine's Runner that streams synthetic events at a chosen rate.

Used by the GUI benchmarks to push a known load through the real relay path
(ProfilerThread -> RunController -> LiveData -> plots) without timing a model. It folds its
events into an engine SessionFold like the real Runner, so memory figures include that copy too.
"""

from __future__ import annotations

import math
import time

from tcprof.profiler.session.fold import SessionFold


class SyntheticRunner:
    def __init__(
        self, config, listeners, steps_per_event=1, rate_steps_per_s=2000.0, duration_s=None
    ):
        self.config, self.listeners = config, listeners
        self.steps_per_event = steps_per_event
        self.rate = rate_steps_per_s
        self.duration_s = duration_s
        self.session = SessionFold()
        self._cancel = False

    def cancel(self):
        self._cancel = True

    def _publish(self, event):
        self.session.apply(event)
        for listener in self.listeners:
            listener(event)

    def run(self):
        t0 = time.perf_counter()
        self._publish({"type": "run_start", "config": self.config.to_dict(), "t": 0.0})
        n_arms = len(self.config.arms)
        for bs in self.config.batch_sizes:
            for arm in range(n_arms):
                self._publish({"type": "phase", "arm": arm, "phase": "measuring", "batch_size": bs})
        per_arm = self.config.steps
        sent = 0
        step = 1
        while step <= per_arm and not self._cancel:
            k = min(self.steps_per_event, per_arm - step + 1)
            for arm in range(n_arms):
                ms = [0.5 + 0.1 * arm + 0.05 * math.sin((step + i) / 50) for i in range(k)]
                bs = self.config.batch_sizes[0]
                self._publish(
                    {
                        "type": "steps",
                        "arm": arm,
                        "batch_size": bs,
                        "phase": "measure",
                        "start": step,
                        "ms": ms,
                    }
                )
                if step % 100 < k:
                    self._publish(
                        {
                            "type": "memory",
                            "arm": arm,
                            "batch_size": bs,
                            "step": step,
                            "rss_mb": 300.0 + arm,
                        }
                    )
            step += k
            sent += k * n_arms
            if self.rate:
                ahead = sent / self.rate - (time.perf_counter() - t0)
                if ahead > 0:
                    time.sleep(ahead)  # pacing the producer thread, not waiting in a test
            if self.duration_s and time.perf_counter() - t0 > self.duration_s:
                break
        self._publish({"type": "run_end", "status": "stopped" if self._cancel else "completed"})
        return self.session


# The window size the GUI benchmarks draw at. At the default 1280x720 the current layout leaves
# the three plots only ~83 px tall each (the results tabs keep 330 px), which makes painting
# unrealistically cheap; a maximised full-HD window gives each plot ~170 x 1550 px.
BENCH_WINDOW_SIZE = (1920, 1080)
MIN_PLOT_HEIGHT = 150


def window_size_from_env() -> tuple[int, int]:
    """TCPROF_BENCH_SIZE=WxH overrides BENCH_WINDOW_SIZE."""
    import os

    spec = os.environ.get("TCPROF_BENCH_SIZE")
    if not spec:
        return BENCH_WINDOW_SIZE
    w, h = spec.lower().split("x")
    return int(w), int(h)


def show_realistic(window, app) -> str:
    """Show `window` at the benchmark size with its plots built and laid out, and check that
    every plot is at a realistic on-screen size (timings of squashed plots mean nothing).
    Returns a one-line description of the plots' sizes."""
    width, height = window_size_from_env()
    window.resize(width, height)
    window.show()
    window.ensure_plots()
    for _ in range(3):
        app.processEvents()
    plots = window.plots.plots
    sizes = [(round(p.size().width()), round(p.size().height())) for p in plots]
    if min(h for _, h in sizes) <= MIN_PLOT_HEIGHT:
        raise SystemExit(
            f"plots too small to measure honestly at {width}x{height}: {sizes} "
            f"(each must be > {MIN_PLOT_HEIGHT} px tall); set TCPROF_BENCH_SIZE=WxH"
        )
    return f"window {width}x{height}, plots " + ", ".join(f"{w}x{h}" for w, h in sizes) + " px"
