"""One real inductor run from the window (a cold compile takes ~15-20 s on CPU here)."""

from __future__ import annotations

import pytest

from tests.app.conftest import configure_fast


@pytest.mark.inductor
@pytest.mark.timeout(300)
def test_eager_vs_inductor_from_the_window(make_window, qtbot):
    window = make_window(background=False)
    configure_fast(
        window, arms=("eager", "inductor"), batch_sizes="32", warmup=1, steps=5, accuracy=True
    )
    compiling_seen = []
    window.controller.eventsArrived.connect(
        lambda events: compiling_seen.extend(
            e for e in events if e.get("type") == "phase" and e.get("phase") == "compiling"
        )
    )
    with qtbot.waitSignal(window.controller.runEnded, timeout=240_000) as ended:
        window.commands.run.trigger()
        qtbot.waitUntil(lambda: "compiling" in window.status.text(), timeout=120_000)
    assert ended.args == ["completed"]
    assert compiling_seen
    rows = window.results.rows()
    assert [(r[0], r[2].split(" (")[0]) for r in rows] == [("eager", "ok"), ("inductor", "ok")]
    header = window.results.header()
    cold = rows[1][header.index("compile s cold/warm")].split(" / ")[0]
    assert float(cold) > 0, "one replicate: the cold compile only"
    assert rows[1][header.index("accuracy")] == "pass"
    assert window.controller.data.arms[1].markers[0].kind == "first"
