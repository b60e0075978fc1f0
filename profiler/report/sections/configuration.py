"""report.html's configuration (the run's options, each arm's compile options) and the
environment the workers reported."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from tcprof.profiler.config import loop_text, where_text
from tcprof.profiler.model.arm import Arm
from tcprof.profiler.model.json_values import thaw
from tcprof.profiler.model.session import SessionModel
from tcprof.profiler.protocol import units
from tcprof.profiler.report.sections.method import steps_text, tolerance_text

Esc = Callable[[Any], str]


def _kv(esc: Esc, items: list[tuple[str, Any]]) -> str:
    rows = []
    for key, value in items:
        if isinstance(value, (list, tuple)):
            value = ", ".join(str(v) for v in value) or "-"
        elif isinstance(value, dict):
            value = json.dumps(value)
        elif value is None:
            value = "-"
        rows.append(f'<tr><th>{esc(key)}</th><td class="wrap">{esc(value)}</td></tr>')
    return f'<table class="kv"><tbody>{"".join(rows)}</tbody></table>'


def _arm_options(arm: Arm) -> list[str]:
    if arm.backend == "eager":
        return ["-", "-", "-"]
    return [
        arm.mode or "default",
        "None (automatic)" if arm.dynamic is None else str(arm.dynamic),
        str(bool(arm.fullgraph)),
    ]


def configuration(model: SessionModel, esc: Esc) -> str:
    cfg = thaw(model.config)  # config/wording.py words the options as given (model/raw.py)
    src, options = model.options.source, model.options
    dbg = options.debug
    # what the worker loaded (the first arm that says)
    loaded = next((a.loaded for a in model.arms if a.loaded), None)
    items = [
        ("model file", src.path),
        ("model", src.factory or src.model or (loaded.model if loaded else None)),
        ("parameters", units.count(loaded.params) if loaded and loaded.params else None),
        ("input", src.input_shape or (loaded.input if loaded else None)),
        ("weights", options.weights or "the seed's initial weights"),
        ("batch sizes", options.batch_sizes),
        ("steps", steps_text(model)),
        (
            "blocks",
            f"{options.blocks} ({'sequential' if options.sequential else 'interleaved'})",
        ),
        ("device", options.device),
        ("ran on", where_text(cfg)),
        ("loop", loop_text(cfg)),
        ("optimizer", f"{options.optimizer} lr={options.lr}"),
        ("seed", options.seed),
        ("accuracy tolerance", tolerance_text(model)),
        ("debug logs", dbg.logs),
        # a session without debug settings says nothing of them
        ("dynamo verbose", dbg.verbose if dbg.given else None),
        ("suppress_errors", dbg.suppress_errors if dbg.given else None),
        ("fail_on_recompile", dbg.fail_on_recompile if dbg.given else None),
        ("timeout s", options.timeout_s),
    ]
    arm_rows = "".join(
        f'<tr><td>{esc(a.name)}</td><td class="mono">{esc(a.backend)}</td>'
        + "".join(f"<td>{esc(v)}</td>" for v in _arm_options(a))
        + "</tr>"
        for a in model.arms
    )
    return (
        '<section id="configuration"><h2>Configuration</h2>'
        + _kv(esc, items)
        + '<h3>Arms</h3><div class="table-wrap"><table><thead><tr><th>arm</th><th>backend</th>'
        f"<th>mode</th><th>dynamic</th><th>fullgraph</th></tr></thead><tbody>{arm_rows}</tbody>"
        "</table></div></section>"
    )


def environment(session: SessionModel, esc: Esc) -> str:
    env = thaw(session.environment)  # every key as the worker said it
    if not env:
        return '<section id="environment"><h2>Environment</h2><p class="muted">Not recorded.</p></section>'
    backends = env.pop("backends", None)
    env.pop("pid", None)
    out = '<section id="environment"><h2>Environment</h2>' + _kv(esc, list(env.items()))
    if backends:
        out += (
            f"<details><summary>{len(backends)} torch.compile backends available</summary>"
            f'<p class="mono">{esc(", ".join(str(b) for b in backends))}</p></details>'
        )
    return out + "</section>"
