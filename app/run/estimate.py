"""The estimate next to Run: "about 1 min 40 s; based on 2 earlier runs of model.py".

The setup panel has no single "changed" signal, so the label re-reads the setup's config twice
a second while no run is in progress and recomputes only when it differs. Earlier sessions of
the model are read off the GUI thread (a session.json can be large), once per model, and again
after a run adds one. The figures and their basis come from tcprof.profiler.run.estimate.
"""

from __future__ import annotations

from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor

from PySide6.QtCore import QTimer
from PySide6.QtGui import QAction
from PySide6.QtWidgets import QLabel, QToolBar, QWidget

from tcprof.profiler.config import ConfigError, RunConfig
from tcprof.profiler.process.inspected import Inspection
from tcprof.profiler.run.estimate import Estimate, Prices, estimate
from tcprof.profiler.run.estimate_history import history_prices

REFRESH_MS = 500
ModelKey = tuple[object, object, object]  # the source's path, model and factory


def model_key(config: RunConfig) -> ModelKey:
    source = config.source
    return (source.path, source.model, source.factory)


def config_prices(config: RunConfig) -> Prices:
    """The earlier sessions of the config's model, in the sessions folder, as prices."""
    return history_prices(config.to_dict())


class RunEstimate(QLabel):
    def __init__(
        self,
        config: Callable[[], RunConfig],
        read_prices: Callable[[RunConfig], Prices] = config_prices,
        parent: QWidget | None = None,
        probe: Callable[[], Inspection | None] = lambda: None,
    ) -> None:
        """config: the setup's RunConfig (ConfigError while it is invalid); read_prices: the
        model's earlier sessions as prices (tests give their own sessions folder); probe: the
        chosen model's inspection, whose step probe prices what history cannot."""
        super().__init__(parent)
        self._probe = probe
        self.setObjectName("run_estimate")
        self.setContentsMargins(6, 0, 6, 0)
        self._config = config
        self._read_prices = read_prices
        self._pool: ThreadPoolExecutor | None = None
        self._pending: tuple[ModelKey, Future[Prices]] | None = None
        self._prices: dict[ModelKey, Prices] = {}
        self._shown: RunConfig | None = None
        self._shown_inspection: Inspection | None = None
        self.current: Estimate | None = None
        self._action: QAction | None = None  # its place in the toolbar, once put there
        self._closed = False
        self.timer = QTimer(self)
        self.timer.setInterval(REFRESH_MS)
        self.timer.timeout.connect(self.refresh)
        self.timer.start()

    def place_after(self, toolbar: QToolBar, action: QAction) -> None:
        """Put the label in the toolbar right after `action` (Run, Stop, then the estimate)."""
        actions = toolbar.actions()
        i = actions.index(action) + 1 if action in actions else len(actions)
        before = actions[i] if i < len(actions) else None
        self._action = toolbar.insertWidget(before, self) if before else toolbar.addWidget(self)

    def for_config(self, config: RunConfig) -> Estimate:
        """The estimate of a run about to start (guesses if its history is still being read)."""
        prices = self._prices.get(model_key(config)) or Prices()
        return estimate(config.to_dict(), self._priced(prices, self._probe()))

    @staticmethod
    def _priced(prices: Prices, inspection: Inspection | None) -> Prices:
        """The prices with the inspection's step probe (as the worker sent it), if any."""
        probe = inspection.probe if inspection is not None else None
        return prices.with_probe(dict(probe) if probe is not None else None)

    def refresh(self) -> None:
        """Recompute when the setup or the model's history changed."""
        try:
            config = self._config()
        except ConfigError:
            self._show(None, "")
            return
        key = model_key(config)
        prices = self._prices.get(key)
        if prices is None:
            self._load(key, config)
            prices = self._prices.get(key)
        if prices is None:
            return  # the history is being read; the next tick shows it
        inspection = self._probe()
        # an inspection is read once per answer: a new one is a new object
        new = inspection is not self._shown_inspection
        if new or config != self._shown or self.current is None:
            est = estimate(config.to_dict(), self._priced(prices, inspection))
            self._shown_inspection = inspection
            self._show(config, est.text(), est)

    def _load(self, key: ModelKey, config: RunConfig) -> None:
        if self._pending is not None:
            pending_key, future = self._pending
            if not future.done():
                return
            self._pending = None
            try:
                self._prices[pending_key] = future.result()
            except (OSError, ValueError):
                self._prices[pending_key] = Prices()
            if pending_key == key:
                return
        if self._pool is None:
            self._pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="run-estimate")
        self._pending = (key, self._pool.submit(self._read_prices, config))

    def _show(self, config: RunConfig | None, text: str, est: Estimate | None = None) -> None:
        self._shown, self.current = config, est
        self.setText(text)
        self.setToolTip(
            "How long the run should take: its first steps (compiles), warm-up and measured "
            "steps per arm, batch size and round, and the worker processes it starts, priced "
            "from earlier runs of this model where there are some"
            if est
            else ""
        )

    def run_started(self) -> None:
        """No estimate while a run is in progress (the status bar shows the time left)."""
        self.timer.stop()
        self._set_visible(False)

    def run_ended(self) -> None:
        """The run's session is history now: read it again, and show the estimate."""
        self._prices.clear()
        self._shown = None
        self._set_visible(True)
        if not self._closed:  # the window may be closing on a run it stopped
            self.timer.start()

    def _set_visible(self, visible: bool) -> None:
        """A widget in a toolbar is shown and hidden through its action."""
        if self._action is not None:
            self._action.setVisible(visible)
        else:
            self.setVisible(visible)

    def shutdown(self) -> None:
        self._closed = True
        self.timer.stop()
        if self._pool is not None:
            self._pool.shutdown(wait=False, cancel_futures=True)
