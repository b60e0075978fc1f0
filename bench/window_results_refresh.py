"""How long the window's results take to refresh on a session (`ResultsView.show_session`, run
after each batch size of a live run and on opening a saved session), and how long the typed
model takes to read it (`SessionModel.from_json`) and give it back (`to_dict`): the median of
20 calls on a synthetic session of 3 arms x 4 batch sizes with 2,000 steps each.

Run: QT_QPA_PLATFORM=offscreen .venv/bin/python -m bench.window_results_refresh
"""

from __future__ import annotations

import statistics
import sys
import time
from collections.abc import Callable


def median_ms(call: Callable[[], object], n: int = 20) -> float:
    times = []
    for _ in range(n):
        start = time.perf_counter()
        call()
        times.append(time.perf_counter() - start)
    return statistics.median(times) * 1000


def main() -> int:
    from PySide6.QtWidgets import QApplication

    from tcprof.app.results.results_view import ResultsView
    from tcprof.profiler.config.arm import ArmSpec
    from tcprof.profiler.model.session import SessionModel
    from tests.support.synthetic import synthetic_session

    app = QApplication.instance() or QApplication([])
    session = synthetic_session(
        arms=(ArmSpec("eager"), ArmSpec("aot_eager"), ArmSpec("inductor")),
        batch_sizes=(8, 16, 32, 64),
        ms=[1.0 + 0.001 * i for i in range(2000)],
    )
    model = SessionModel.from_json(session)
    view = ResultsView()
    print(f"SessionModel.from_json: {median_ms(lambda: SessionModel.from_json(session)):.1f} ms")
    print(f"SessionModel.to_dict:   {median_ms(model.to_dict):.1f} ms")
    print(f"ResultsView.show_session: {median_ms(lambda: view.show_session(session)):.1f} ms")
    del app
    return 0


if __name__ == "__main__":
    sys.exit(main())
