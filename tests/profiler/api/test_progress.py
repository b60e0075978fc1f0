"""progress=: a callback is given each event with how far the run has got; one that raises
KeyboardInterrupt stops the run and is not called again, one that raises anything else is
dropped with a warning (the run goes on)."""

from __future__ import annotations

import pytest

from tcprof.profiler.api.progress import Progress, RunProgress, TcprofWarning
from tcprof.profiler.config import ArmSpec, ModelSource, RunConfig

CONFIG = RunConfig(ModelSource("/m.py"), arms=(ArmSpec("eager"),), steps=2, blocks=2, replicates=1)
EVENTS = [
    {"type": "run_start"},
    {"type": "first_step", "arm": 0, "batch_size": 32},
    {"type": "block_done", "arm": 0, "batch_size": 32},
    {"type": "block_done", "arm": 0, "batch_size": 32},
    {"type": "run_end", "status": "completed"},
]


def test_a_callback_hears_every_event_with_the_runs_fraction():
    seen: list[Progress] = []
    listener = RunProgress(CONFIG, seen.append, quiet=False, show_output=False)
    for event in EVENTS:
        listener(event)
    assert [p.kind for p in seen] == [e["type"] for e in EVENTS]
    assert [round(p.fraction, 3) for p in seen] == [0.0, 0.333, 0.667, 1.0, 1.0]
    assert seen[1].where == "starting workers" and seen[1].elapsed_s >= 0
    with pytest.raises(TypeError):
        seen[0].event["type"] = "x"  # type: ignore[index]


def test_a_callback_that_interrupts_is_not_called_again():
    calls = []

    def interrupt(progress: Progress) -> None:
        calls.append(progress.kind)
        raise KeyboardInterrupt

    listener = RunProgress(CONFIG, interrupt, quiet=False, show_output=False)
    with pytest.raises(KeyboardInterrupt):
        listener(EVENTS[0])
    listener(EVENTS[-1])  # the run's end, published while it stops
    assert calls == ["run_start"]


def test_a_callback_that_fails_is_dropped_with_a_warning_and_the_run_goes_on():
    calls = []

    def broken(progress: Progress) -> None:
        calls.append(progress.kind)
        raise RuntimeError("no display")

    listener = RunProgress(CONFIG, broken, quiet=False, show_output=False)
    with pytest.warns(TcprofWarning, match="the progress callback raised RuntimeError: no display"):
        listener(EVENTS[0])
    listener(EVENTS[1])
    assert calls == ["run_start"]


def test_progress_true_off_a_notebook_is_the_clis_line(capsys):
    listener = RunProgress(CONFIG, True, quiet=False, show_output=False)
    for event in EVENTS:
        listener({**event, "type": "phase", "phase": "warmup", "arm": 0, "batch_size": 32})
    listener.close("completed")
    assert "[eager] bs 32: warm-up…" in capsys.readouterr().err
    quiet = RunProgress(CONFIG, None, quiet=True, show_output=False)
    quiet({"type": "phase", "phase": "warmup", "arm": 0, "batch_size": 32})
    quiet.close("completed")
    assert capsys.readouterr().err == ""
