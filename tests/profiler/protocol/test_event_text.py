"""One line of text per notable event, shared by the terminal and the log panel."""

from __future__ import annotations

import io

from tcprof.profiler.config import ArmSpec, ModelSource, RunConfig, ScriptSource
from tcprof.profiler.protocol.event_text import (
    FELL_BACK,
    PHASE_TEXT,
    describe,
    phase_text,
    recompile_limit_hit,
)
from tcprof.profiler.protocol.events import EventType, Phase
from tcprof.profiler.recording.progress import TerminalProgress


def test_notable_events_read_as_one_line_each():
    assert (
        describe(
            {
                "type": "hello",
                "torch": "2.13.0",
                "python": "3.11.7",
                "device": "cpu",
                "device_name": "Test CPU",
            }
        )
        == "torch 2.13.0 · python 3.11.7 · cpu (Test CPU)"
    )
    assert (
        describe({"type": "loaded", "model": "Net()", "params": 12345, "input": "(B, 10) float"})
        == "loaded Net(): 12,345 parameters, input (B, 10) float"
    )
    assert (
        describe(
            {
                "type": "first_step",
                "batch_size": 8,
                "ms": 1500.0,
                "compiles": 2,
                "compile_s": 1.234,
                "replicate": 1,
            }
        )
        == "bs 8: first step 1.50 s, of which torch's compile timer 1.23 s (round 2)"
    )
    assert (
        describe(
            {
                "type": "compile",
                "batch_size": 16,
                "kind": "recompile",
                "frame": "forward",
                "seconds": 0.25,
                "reason": "size mismatch at index 0. expected 8, actual 16",
            }
        )
        == "bs 16: TorchDynamo recompile of forward, 0.25 s by torch's compile timer: "
        "size mismatch at index 0. expected 8, actual 16"
    )
    assert (
        describe(
            {
                "type": "graph_break",
                "batch_size": 8,
                "file": "m.py",
                "line": 7,
                "reason": "Data-dependent branching",
            }
        )
        == "bs 8: graph break at m.py:7: Data-dependent branching"
    )
    assert (
        describe(
            {
                "type": "error",
                "batch_size": 64,
                "kind": "oom",
                "message": "CUDA out of memory",
                "file": "m.py",
                "line": 3,
            }
        )
        == "ERROR bs 64: oom: CUDA out of memory (m.py:3)"
    )
    assert (
        describe(
            {
                "type": "accuracy",
                "batch_size": 8,
                "status": "fail",
                "reason": "too far",
                "worst": {"name": "output", "max_rel_err": 0.0123},
            }
        )
        == "bs 8: accuracy fail (worst: output, rel err 0.012): too far"
    )
    assert describe({"type": "log", "text": "hello from the model\n"}) == "hello from the model"
    assert describe({"type": "run_end", "status": "completed"}) == "run completed"


def test_a_round_start_names_its_round_and_cache():
    event = {"type": "round_start", "replicate": 1, "cache": "warm", "order": ["a", "b"]}
    assert describe(event, rounds=3) == (
        "round 2/3: a fresh process per arm, compiled arms start from a warm cache"
    )
    user = {"type": "round_start", "replicate": 0, "cache": "user"}
    assert describe(user) == "round 1: a fresh process per arm"


def test_samples_phases_and_acknowledgements_are_not_lines():
    for kind in ("steps", "memory", "phase", "block_done", "bs_done", "done", "ready", "bye"):
        assert describe({"type": kind, "batch_size": 8}) is None, kind
    assert describe({"type": "something_newer"}) is None, "unknown types are ignored"


def test_the_recompile_limit_has_one_sentence():
    line = describe({"type": "fallback", "batch_size": 32, "frame": "forward"})
    assert line == "bs 32: " + recompile_limit_hit("forward")
    assert "runs eagerly" in line and "not compiled timings" in line
    assert FELL_BACK == "fell back to eager"


def test_every_phase_has_words():
    assert set(PHASE_TEXT) == set(Phase)
    assert phase_text("compiling") == "compiling (first step)"
    assert phase_text("something_newer") == "something_newer"


def _progress(stream: io.StringIO, **kw) -> TerminalProgress:
    config = RunConfig(
        ModelSource("m.py"),
        arms=(ArmSpec("eager"), ArmSpec("aot_eager")),
        batch_sizes=(8,),
        steps=4,
        blocks=2,
        replicates=2,
    )
    return TerminalProgress(config, ["eager", "aot_eager"], stream=stream, **kw)


def test_the_terminal_prints_lines_from_event_text_with_the_arm():
    stream = io.StringIO()
    progress = _progress(stream)
    events = [
        {"type": EventType.ROUND_START, "replicate": 0, "cache": "cold"},
        {
            "type": "hello",
            "arm": 0,
            "replicate": 0,
            "torch": "2.13.0",
            "python": "3.11",
            "device": "cpu",
            "device_name": "CPU",
        },
        {
            "type": "hello",
            "arm": 1,
            "replicate": 0,
            "torch": "2.13.0",
            "python": "3.11",
            "device": "cpu",
            "device_name": "CPU",
        },
        {"type": "phase", "arm": 1, "replicate": 0, "phase": "compiling", "batch_size": 8},
        {
            "type": "compile",
            "arm": 1,
            "replicate": 0,
            "batch_size": 8,
            "kind": "first",
            "frame": "forward",
        },
        {"type": "phase", "arm": 1, "replicate": 0, "phase": "measuring", "batch_size": 8},
        {"type": "graph_break", "arm": 1, "replicate": 1, "batch_size": 8, "reason": "again"},
        {"type": "log", "arm": 0, "stream": "output", "text": "printed by the model"},
        {"type": "fallback", "arm": 1, "replicate": 0, "batch_size": 8, "frame": "forward"},
    ]
    for e in events:
        progress(e)
    progress.close()
    assert stream.getvalue().splitlines() == [
        "round 1/2: a fresh process per arm, compiled arms start from a cold cache",
        "[eager] torch 2.13.0 · python 3.11 · cpu (CPU)",
        "[aot_eager] bs 8: compiling (first step)…",
        "[aot_eager] bs 8: " + recompile_limit_hit("forward"),
    ]


def test_the_terminal_echoes_the_models_output_when_asked_and_nothing_when_quiet():
    printed = {"type": "log", "arm": 0, "stream": "output", "text": "printed by the model"}
    loud, quiet = io.StringIO(), io.StringIO()
    _progress(loud, show_output=True)(printed)
    _progress(quiet, quiet=True)({"type": "error", "arm": 0, "kind": "oom", "message": "x"})
    assert loud.getvalue() == "[eager] printed by the model\n"
    assert quiet.getvalue() == ""


def _script_progress(stream: io.StringIO, sweep: str | None = None) -> TerminalProgress:
    path = "/tmp/train.py"
    args = ("--batch_size={batch_size}",) if sweep else ()
    config = RunConfig(
        ModelSource(path),
        script=ScriptSource(path=path, args=args, sweep=sweep),
        arms=(ArmSpec("eager"), ArmSpec("aot_eager")),
        batch_sizes=(1,) if sweep is None else (4, 8),
        steps=4,
        blocks=2,
    )
    return TerminalProgress(config, ["eager", "aot_eager"], stream=stream)


def test_a_script_without_a_sweep_says_no_batch_size_in_its_progress():
    """Its workers send a batch size of 1 for its one phase: no batch size of the script's."""
    stream = io.StringIO()
    progress = _script_progress(stream)
    events = [
        {"type": "phase", "arm": 1, "replicate": 0, "phase": "compiling", "batch_size": 1},
        {"type": "first_step", "arm": 1, "replicate": 0, "batch_size": 1, "ms": 900.0},
        {"type": "graph_break", "arm": 1, "replicate": 0, "batch_size": 1, "reason": "print"},
        {"type": "error", "arm": 1, "replicate": 0, "batch_size": 1, "kind": "x", "message": "m"},
    ]
    for e in events:
        progress(e)
    progress.model.apply(events[0])
    text = stream.getvalue()
    assert "bs " not in text and "[aot_eager] compiling (first step)…" in text
    assert "[aot_eager] first step 0.90 s" in text
    assert "bs" not in progress.model.where()
    assert progress.model.where() == "aot_eager · compiling (first step)"
    for e in events[1:]:
        assert "bs" not in (describe(e, script={"sweep": None}) or "")
    assert describe(events[1]) == "bs 1: first step 0.90 s", "a model file's says its batch size"


def test_a_scripts_sweep_value_is_said_by_its_own_name():
    stream = io.StringIO()
    progress = _script_progress(stream, sweep="batch_size")
    progress({"type": "phase", "arm": 0, "replicate": 0, "phase": "first_step", "batch_size": 8})
    assert "[eager] batch_size=8: first step…" in stream.getvalue()
    assert progress.model.where() == "eager · batch_size=8 · first step"


def test_the_terminal_tells_each_interpreter_once():
    """An arm under its own interpreter (python=PATH) says its torch too; the other arms'
    hellos, of the engine's own interpreter, are not repeated."""
    stream = io.StringIO()
    progress = _progress(stream)
    hello = {"type": "hello", "replicate": 0, "python": "3.11", "device": "cpu"}
    own = {**hello, "torch": "2.13.0", "executable": "/env/a/bin/python", "device_name": "CPU"}
    for arm, executable, torch in ((0, "/env/a", "2.13.0"), (1, "/env/b", "2.14.1")):
        progress({**own, "arm": arm, "executable": executable, "torch": torch})
    progress({**own, "arm": 0, "executable": "/env/a", "replicate": 1})
    assert stream.getvalue().splitlines() == [
        "[eager] torch 2.13.0 · python 3.11 · cpu (CPU)",
        "[aot_eager] torch 2.14.1 · python 3.11 · cpu (CPU)",
    ]
