"""report.html: one self-contained page (styles, scripts and data inline; no request to any host).

Every piece of text that comes from a model, a log or the environment goes through `esc()`;
the chart data travels as JSON in a <script type="application/json"> element, escaped by
`data.script_json` so that no string in it can end the element.
"""

from __future__ import annotations

import html as _html
import time
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tcprof.profiler.config.resources import resource_path
from tcprof.profiler.model.json_values import items, thaw
from tcprof.profiler.model.session import SessionModel
from tcprof.profiler.protocol.event_text import FELL_BACK
from tcprof.profiler.report import artefacts
from tcprof.profiler.report.data import model_label, script_json
from tcprof.profiler.report.palette import arm_colours, is_eager
from tcprof.profiler.report.sections import configuration as configuration_section
from tcprof.profiler.report.sections import insight as insight_section
from tcprof.profiler.report.sections import ladder as ladder_section
from tcprof.profiler.report.sections import page_end, run_output, top_ops
from tcprof.profiler.report.sections import regional as regional_section
from tcprof.profiler.report.sections import script as script_section
from tcprof.profiler.report.sections import stragglers as straggler_section
from tcprof.profiler.report.sections import summary as summary_section
from tcprof.profiler.report.sections import timeline as timeline_section
from tcprof.profiler.report.sections.provenance import provenance_line

ASSETS = resource_path("report")
VENDOR = ASSETS / "vendor" / "uplot"
# No network at all: scripts and styles only from this page, images only as data: URLs.
CSP = (
    "default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; "
    "img-src data:; base-uri 'none'; form-action 'none'"
)


def esc(value: Any) -> str:
    return _html.escape("" if value is None else str(value), quote=True)


def _resource(path: Path) -> str:
    text = path.read_text(encoding="utf-8")
    # An inlined file must not be able to close the element it is inlined into.
    for closer in ("</script", "</style", "<!--"):
        if closer in text.lower():
            raise ValueError(f"{path.name} contains {closer!r} and cannot be inlined")
    return text


STEP_AXIS = "step within the batch size (as the worker counts: 0 the first step)"


@dataclass(frozen=True)
class StepSample:
    """One arm and batch size's step samples for the charts, read once from session.json's
    `samples` (raw arrays, model/raw.py): the times as saved and where each block is drawn."""

    arm: Any
    batch_size: Any
    warmup_ms: Any  # the arrays as saved
    ms: Any
    memory: Any
    runs: list[list[int]]

    @classmethod
    def of(cls, sample: Mapping[str, Any], warmup: int) -> StepSample:
        ms, warmup_ms = sample.get("ms") or [], sample.get("warmup_ms") or []
        runs = _step_runs(ms, sample.get("blocks") or [], len(warmup_ms), warmup)
        memory = sample.get("memory") or []
        return cls(sample.get("arm"), sample.get("batch_size"), warmup_ms, ms, memory, runs)

    def json(self) -> dict[str, Any]:  # the page's chart data
        return {
            "arm": self.arm,
            "batch_size": self.batch_size,
            "warmup_ms": self.warmup_ms,
            "ms": self.ms,
            "runs": self.runs,
            "memory": self.memory,
        }


def _step_runs(ms: Any, blocks: Any, warmup_steps: int, warmup: int) -> list[list[int]]:
    """Where each measured step is drawn: [round, x of its first step, index in `ms`, count]
    per block. x counts steps as the worker does, as memory readings and markers do: 0 the
    first (compiling) step, 1..warmup the warm-up, then per block one discarded step and the
    block's steps. Without `blocks` (older sessions), the steps follow the `warmup_steps`
    recorded."""
    runs: list[list[int]] = []
    index = 0
    x_of: dict[int, int] = {}  # each round's next step
    for entry in blocks:
        if not (isinstance(entry, list) and len(entry) == 3):
            continue
        rep, _block, n = entry
        if not (isinstance(rep, int) and isinstance(n, int)) or n <= 0:
            continue
        n = min(n, len(ms) - index)
        if n <= 0:
            break
        x0 = x_of.get(rep, 1 + warmup) + 1  # after the block's discarded step
        runs.append([rep, x0, index, n])
        x_of[rep] = x0 + n
        index += n
    if not runs and ms:
        runs.append([0, 1 + warmup_steps, 0, len(ms)])
    return runs


def _x_ranges(samples: list[StepSample]) -> dict[str, list[int]]:
    """One x range per batch size, shared by every chart of it (step time, throughput,
    memory) in every round: from the first step to the last step or memory reading of any arm,
    so the charts end at the same x."""
    ends: dict[str, int] = {}
    for s in samples:
        key = str(s.batch_size)
        last = len(s.warmup_ms)
        for _rep, x0, _i, n in s.runs:
            last = max(last, x0 + n - 1)
        for reading in s.memory:
            if reading and isinstance(reading[0], (int, float)):
                last = max(last, int(reading[0]))
        ends[key] = max(ends.get(key, 0), last)
    return {key: [0, end] for key, end in ends.items()}


def chart_data(model: SessionModel) -> dict[str, Any]:
    """The compact data the charts draw from. Every step-based chart of a batch size draws
    against one x axis (`x`): the worker's step count, over one range per batch size. The step
    samples are raw arrays (model/raw.py), copied as saved: the rest of the session is not."""
    warmup = model.options.warmup or 0
    saved = thaw(model.data.get("samples"))
    samples = [StepSample.of(s, warmup) for s in items(saved)]
    rounds = max([1] + [r[0] + 1 for s in samples for r in s.runs])
    order = list(model.options.batch_sizes)
    seen = {s.batch_size for s in samples} | {r.batch_size for r in model.rows}
    batch_sizes = [b for b in order if b in seen] + sorted(
        b for b in seen if b not in order and isinstance(b, int)
    )
    cuda = any(m[2] is not None for s in samples for m in s.memory if len(m) > 2)
    summary = [
        {
            "arm": r.arm,
            "batch_size": r.batch_size,
            "samples_per_s": r.samples_per_s,
            "work_per_s": r.script.work_per_s if r.script else None,
            "median_ms": r.median_ms,
        }
        for r in model.rows
    ]
    return {
        "arms": [{"name": a.name, "compiled": a.backend != "eager"} for a in model.arms],
        "colours": arm_colours([is_eager(a.backend) for a in model.arms]),
        "batch_sizes": batch_sizes,
        "warmup": warmup,
        "samples": [s.json() for s in samples],
        "x": {"label": STEP_AXIS, "ranges": _x_ranges(samples)},
        "rounds": rounds,
        "summary": summary,
        "markers": _markers(model),
        "cuda": cuda,
        "throughput": _throughput(model),
    }


def _markers(session: SessionModel) -> list[dict[str, Any]]:
    """The dashed lines: each recompile and each fallback to eager after the first step."""
    markers = []
    for a in session.arms:
        events = [(rc.batch_size, rc.step, "recompile") for rc in a.recompiles]
        events += [(fb.batch_size, fb.step, FELL_BACK) for fb in a.fallbacks]
        for batch_size, step, label in events:
            if (step or 0) > 0:
                markers.append(
                    {"arm": a.name, "batch_size": batch_size, "step": step, "label": label}
                )
    return markers


def _throughput(session: SessionModel) -> dict[str, Any]:
    """What the throughput charts count: a model file's samples (its batch size per step); a
    script's own unit, with each row's measured work per step (its phases are not batches:
    `phase` names what they are, None for a script without a sweep)."""
    script = session.options.script
    if script is None:
        return {"unit": "samples", "work": None, "phase": "bs"}
    work = {
        a.name: {str(r.batch_size): r.script.work_per_step if r.script else None for r in a.rows}
        for a in session.arms
    }
    return {"unit": script_section.work_unit(session), "work": work, "phase": script.sweep}


def _header(session: SessionModel, folder: Any = None) -> str:
    env = session.runtime
    status = session.status
    started = session.started_at
    when = (
        time.strftime("%Y-%m-%d %H:%M", time.localtime(started))
        if started is not None
        else "unknown time"
    )
    arms = ", ".join(a.name for a in session.arms)
    status_cls = "good" if status == "completed" else "bad"
    device = (env and (env.device_name or env.device)) or "?"
    facts = [
        f"arms: {esc(arms)}",
        f"{esc((env and env.device) or '?')} ({esc(device)})",
        f"torch {esc((env and env.torch) or '?')}",
        esc(when),
    ]
    provenance = provenance_line(session)
    toc = "".join(
        f'<a href="#{anchor}">{title}</a>'
        for anchor, title in (
            ("summary", "Summary"),
            *([("script", "Your script")] if script_section.script_of(session) else []),
            ("charts", "Charts"),
            ("insight", "Graph breaks &amp; recompiles"),
            *([("ladder", "Backend ladder")] if ladder_section.rows(session) else []),
            *([("regional", "Regional compile")] if regional_section.rows(session) else []),
            *([("ranks", "Ranks")] if straggler_section.rows(session) else []),
            *([("timeline", "Time")] if timeline_section.timeline_of(session) else []),
            ("errors", "Errors"),
            ("configuration", "Configuration"),
            ("environment", "Environment"),
            ("logs", "Logs"),
            *([("profile", "Top operators")] if top_ops.profiles(session) else []),
            *([("files", "Files")] if artefacts.artefacts(session, folder) else []),
            ("code", "Code"),
        )
    )
    return (
        "<header>"
        f"<h1>torch.compile profile: {esc(model_label(session))}</h1>"
        f'<p class="meta"><span class="badge {status_cls}">{esc(status)}</span> '
        + " · ".join(facts)
        + "</p>"
        + (f'<p class="meta provenance">{esc(provenance)}</p>' if provenance else "")
        + f'<nav class="toc">{toc}</nav>'
        "</header>"
    )


def _charts() -> str:
    return (
        '<section id="charts"><h2>Charts</h2>'
        '<div class="controls"><div class="group"><span class="muted">batch size</span>'
        '<span class="group" id="bs-buttons"></span></div>'
        '<label class="group"><input type="checkbox" id="log-scale"> log scale</label>'
        '<span class="note">Drag across a chart to zoom, double-click to reset; hover for the '
        "values. The first (compiling) step is not drawn: see compile s in the summary. "
        "Dashed lines mark recompiles.</span></div>"
        '<div class="charts">'
        '<div class="chart"><h3>Step time per step</h3><div id="chart-step-time"></div></div>'
        '<div class="chart"><h3>Throughput per step</h3><div id="chart-throughput"></div></div>'
        '<div class="chart"><h3>Memory</h3><div id="chart-memory"></div></div>'
        '<div class="chart"><h3>Median throughput by batch size</h3>'
        '<div id="chart-scaling"></div></div>'
        "</div>"
        '<noscript><p class="note">The charts need JavaScript; the tables below don\'t.</p>'
        "</noscript></section>"
    )


def _document(title: str, body: str, model: SessionModel) -> str:
    """A page with report.html's styles, its chart data and scripts, around `body`."""
    css = _resource(VENDOR / "uPlot.min.css") + "\n" + _resource(ASSETS / "report.css")
    js_lib = _resource(VENDOR / "uPlot.iife.min.js")
    js_app = _resource(ASSETS / "report.js")
    return (
        "<!DOCTYPE html>\n"
        '<html lang="en">\n<head>\n<meta charset="utf-8">\n'
        f'<meta http-equiv="Content-Security-Policy" content="{CSP}">\n'
        '<meta name="viewport" content="width=device-width, initial-scale=1">\n'
        '<meta name="generator" content="tcprof">\n'
        f"<title>{esc(title)}</title>\n"
        f"<style>\n{css}\n</style>\n</head>\n<body>\n{body}\n"
        f'<script type="application/json" id="tcprof-data">{script_json(chart_data(model))}'
        "</script>\n"
        f"<script>\n{js_lib}\n</script>\n"
        f"<script>\n{js_app}\n</script>\n"
        "</body>\n</html>\n"
    )


def render_summary_page(model: SessionModel) -> str:
    """report.html's verdict, summary and charts alone, as one page (a notebook shows it)."""
    body = (
        f'<main><section id="summary">{summary_section.verdict_list(model, esc)}'
        f"{summary_section.summary_body(model, esc)}</section>{_charts()}</main>"
    )
    return _document(f"tcprof: {model_label(model)}", body, model)


def render_html(model: SessionModel, folder: Any = None) -> str:
    """The whole report as one HTML document; `folder` is where it is written (its links to the
    session's files are relative to it; None: the session's own folder)."""
    from tcprof.profiler.report.reproduce import render_reproducer

    codes = []
    for arm in model.arms:
        try:
            codes.append((arm.name, render_reproducer(model, arm.name)))
        except Exception as exc:  # a report without the code is better than no report
            codes.append((arm.name, f"# could not generate the script: {exc}\n"))
    body = "\n".join(
        [
            _header(model, folder),
            "<main>",
            summary_section.summary(model, esc),
            script_section.html_section(model, esc),
            _charts(),
            insight_section.insight(model, esc),
            ladder_section.html_section(model, esc),
            regional_section.html_section(model, esc),
            straggler_section.html_section(model.to_dict(), esc),  # its section reads the dict
            timeline_section.html_section(model, esc),
            run_output.errors(model, esc),
            configuration_section.configuration(model, esc),
            configuration_section.environment(model, esc),
            run_output.logs(model, esc),
            top_ops.html_section(model, esc),
            artefacts.html_section(model, esc, folder),
            page_end.code(codes, esc),
            "</main>",
            page_end.footer(model, esc),
        ]
    )
    return _document(f"tcprof report: {model_label(model)}", body, model)
