"""A stand-in for the engine's Runner that streams synthetic events at a chosen rate.

Used by the GUI benchmarks to push a known load through the real relay path
(ProfilerThread -> RunController -> LiveData -> plots) without timing a model. It folds its
events into an engine Session like the real Runner, so memory figures include that copy too.
"""

from __future__ import annotations

import math
import time

from profiler.session import Session


class SyntheticRunner:
    def __init__(
        self, config, listeners, steps_per_event=1, rate_steps_per_s=2000.0, duration_s=None
    ):
        self.config, self.listeners = config, listeners
        self.steps_per_event = steps_per_event
        self.rate = rate_steps_per_s
        self.duration_s = duration_s
        self.session = Session()
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
