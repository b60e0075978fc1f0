"""The "Your script" part of the reports and of `tcprof run`'s summary, for a session of a
training script run unchanged (config.script): the command, what each arm compiled and where,
each step split into compute and the script's own time (a data-bound script named as such),
its unit of work (samples or tokens per step, as its model was given them), the loss curves of the timed arms and of the untimed parity runs, and the files the script
wrote. A session of a model file has no such part."""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import Any

from tcprof.profiler.config.script import ScriptSource
from tcprof.profiler.model.row import Row
from tcprof.profiler.model.session import SessionModel
from tcprof.profiler.protocol import units
from tcprof.profiler.report.sections.html_table import table_html, table_markdown

Esc = Callable[[Any], str]
Curve = list[tuple[float, float | None]]  # (step, loss)
SPLIT_HEADER = ["arm", "phase", "compute ms", "own ms", "step ms", "own share", "start-up s"]
EXPLAIN = (
    "A step of a script is one optimizer step (gradient accumulation's micro-batches are one "
    "step). Compute runs from the step's first training forward to the end of its optimizer "
    "step; it is the median ms of the summary and what the speedup compares. The script's own "
    "time runs from the step before's end to that forward: data loading, logging, evaluation, "
    "checkpoints. torch.compile changes compute; a script whose own time is half its step or "
    "more is data-bound, and compiling speeds up only the other half."
)


def script_of(session: SessionModel) -> ScriptSource | None:
    """The script's options, typed (None: a model file's session)."""
    return session.options.script


def command_text(script: ScriptSource, value: Any = None) -> str:
    """The command as typed, the sweep's placeholder filled with `value` (KeyError: a script's
    options with neither a path nor a module)."""
    if not (script.module or script.path):
        raise KeyError("path")
    target = ["-m", script.module] if script.module else [script.path]
    args = [str(a) for a in script.args]
    if script.sweep and value is not None:
        args = [a.replace("{" + str(script.sweep) + "}", str(value)) for a in args]
    return " ".join([str(script.python or "python"), *target, *args])


def phase_text(script: ScriptSource, batch_size: Any) -> str:
    """'batch_size=8' for a sweep's phase; 'the script' for a script without one."""
    return f"{script.sweep}={batch_size}" if script.sweep else "the script"


def _rows(model: SessionModel) -> list[tuple[str, Row]]:
    """(arm name, row) for every row, arm by arm."""
    return [(arm.name, row) for arm in model.arms for row in arm.rows]


def work_unit(model: SessionModel) -> str:
    """What a script's throughput counts: its `--unit`, else what its rows measured (tokens
    where its model was given token ids, else samples, else steps)."""
    script = script_of(model)
    if script is not None and script.unit:
        return str(script.unit)
    for _name, row in _rows(model):
        unit = row.script.unit if row.script else None
        if unit in ("tokens", "samples"):
            return str(unit)
    return "steps" if script is not None else "samples"


def work_text(row: Row, unit: str) -> str:
    """A row's measured work per step in the unit: '2,048 tokens' ('-': not seen)."""
    value = row.script.per_step(unit) if row.script else (1.0 if unit == "steps" else None)
    return f"{units.count(value)} {unit}" if units.number(value) is not None else units.MISSING


def work_lines(model: SessionModel) -> list[str]:
    """How the script's throughput was counted, with each phase's work per step: 'throughput
    in tokens/s: 2,048 tokens per step (...; padding counted)'."""
    script = script_of(model)
    if script is None:
        return []
    unit = work_unit(model)
    seen: dict[str, None] = {}
    for _name, row in _rows(model):
        fig = row.script
        if fig is None:
            continue
        parts = [
            f"{units.count(value)} {word}"
            for value, word in ((fig.tokens_per_step, "tokens"), (fig.samples_per_step, "samples"))
            if value is not None
        ]
        if parts:
            at = f" at {phase_text(script, row.batch_size)}" if script.sweep else ""
            seen[" and ".join(parts) + " per step" + at] = None
    how = {
        "tokens": "batch x sequence of the token ids its model is given, every micro-batch of "
        "a step summed; padding counted",
        "samples": "the leading dimension of the batch its model is given, every micro-batch "
        "of a step summed",
        "steps": "optimizer steps",
    }[unit]
    measured = "; ".join(seen) if seen else "its model's inputs showed no batch"
    given = " (--unit)" if script.unit else ""
    return [f"throughput in {unit}/s{given} ({how}): {measured}"]


def _ms(value: float | None) -> str:
    return units.ms(value, unit=False)  # the column's header says ms


def split_rows(model: SessionModel) -> list[list[str]]:
    script = script_of(model) or ScriptSource(path="")
    out = []
    for name, row in _rows(model):
        fig = row.script
        share_text = units.percent(fig.own_share if fig else None)
        if fig and fig.data_bound:
            share_text += " (data-bound)"
        out.append(
            [
                name,
                phase_text(script, row.batch_size),
                _ms(fig.compute_median_ms if fig else None),
                _ms(fig.own_median_ms if fig else None),
                _ms(fig.step_median_ms if fig else None),
                share_text,
                units.seconds(fig.startup_s if fig else None, unit=False),
            ]
        )
    return out


def notes(session: SessionModel) -> list[str]:
    """Per arm, what its first round did: the model, what was compiled and where."""
    out = []
    for arm in session.arms:
        for note in arm.script.notes if arm.script else ():
            if note.kind != "model" or arm.index == 0:
                out.append(f"{arm.name}: {note.text}")
    return out


def files(session: SessionModel) -> list[str]:
    found: dict[str, int | None] = {}
    for arm in session.arms:
        for item in arm.script.files if arm.script else ():
            found[item.path] = item.size
    return [
        f"{p} ({units.count(b)} bytes)" if isinstance(b, int) else p
        for p, b in sorted(found.items())
    ]


def data_bound(model: SessionModel) -> list[str]:
    """'eager at batch_size=8: the script's own time is 62% of its step (data-bound)'."""
    script = script_of(model) or ScriptSource(path="")
    out = []
    for name, row in _rows(model):
        fig = row.script
        if fig and fig.data_bound:
            at = f" at {phase_text(script, row.batch_size)}" if script.sweep else ""
            out.append(
                f"{name}{at}: the "
                f"script's own time is {units.percent(fig.own_share)} of its step (data-bound: "
                "compiling speeds up only the rest)"
            )
    return out


def text_lines(
    model: SessionModel,
    render_table: Callable[[list[str], list[list[str]]], str],
) -> list[str]:
    """The summary's lines for a script session (none for a model file)."""
    script = script_of(model)
    if script is None:
        return []
    lines = [f"script: {command_text(script)}"]
    lines += [f"  {n}" for n in notes(model)]
    rows = split_rows(model)
    if rows:
        table = render_table(SPLIT_HEADER, rows)
        lines += ["", "compute and the script's own time per step (medians):"]
        lines += ["  " + line for line in table.splitlines()]
    lines += [f"  note: {line}" for line in data_bound(model)]
    lines += [f"  {line}" for line in work_lines(model)]
    written = files(model)
    if written:
        lines.append(f"the script wrote: {', '.join(written)}")
    return lines


def accuracy_note(session: SessionModel) -> str | None:
    """The method note of a script's loss parity (None: no parity ran)."""
    acc = [r.accuracy for r in session.rows if r.accuracy and r.accuracy.parity]
    if not acc:
        return None
    tol = acc[0]
    if all(a.fallback_random is None for a in acc):  # recorded when every run had the switch
        arm = "the arm with inductor's fallback_random"
    else:
        again = sum(1 for a in acc if a.fallback_random)
        arm = (
            "the arm as it is (run again with inductor's fallback_random where its curve "
            f"parted, as dropout's own masks make it: {again} of {len(acc)} check(s))"
        )
    return (
        f"accuracy (loss parity): the script's first {tol.steps} steps run untimed three "
        "times from the same seeds, eager, eager again (the two must agree, else the script is "
        f"nondeterministic) and {arm}, in a process of its "
        f"own; a step passes when |arm - eager| <= {tol.atol:g} + {tol.rtol:g} x "
        "|eager|, and a failure names the first step where the curves part"
    )


# -- loss curves ------------------------------------------------------------------------------
def curves(session: SessionModel) -> list[tuple[str, int, Curve]]:
    """(label, phase, [(step, loss), ...]): each timed arm's first round, and the untimed parity
    runs (eager, and the arm's judged run) of each compiled arm."""
    out: list[tuple[str, int, Curve]] = []
    for arm in session.arms:
        for row in arm.rows:
            curve = list(row.script.loss_curve) if row.script else []
            if curve:
                out.append((arm.name, row.batch_size, curve))
            acc = row.accuracy
            if acc is None:
                continue
            runs = (
                (acc.eager_curve, "eager (parity run)", True),
                (acc.arm_curve, "parity run", False),
            )
            for values, label, eager in runs:
                points: Curve = [(i, v) for i, v in enumerate(values) if v is not None]
                if points and (not eager or not any(c[0] == label for c in out)):
                    name = label if eager else f"{arm.name} ({label})"
                    out.append((name, row.batch_size, points))
    return out


def _loss(value: float | None) -> str:
    """A loss in report.md's table; a step without a finite loss (skipped, NaN) is blank."""
    return f"{value:.4g}" if value is not None and math.isfinite(value) else ""


def nice_ticks(low: float, high: float, most: int = 6) -> list[float]:
    """Round tick values (1, 2 or 5 times a power of ten apart) inside [low, high], at most
    `most` + 1 of them: the loss chart's axes."""
    if not (math.isfinite(low) and math.isfinite(high)) or high <= low:
        return [low] if math.isfinite(low) else []
    raw = (high - low) / max(1, most)
    power = 10 ** math.floor(math.log10(raw))
    step = next(m * power for m in (1, 2, 5, 10) if m * power >= raw)
    first = math.ceil(low / step - 1e-9) * step
    count = int(math.floor((high - first) / step + 1e-9)) + 1
    return [round(first + k * step, 12) for k in range(count)]


def _joined(curve: Sequence[tuple[float, float | None]]) -> list[tuple[float, float]]:
    """A curve's finite points in step order: one line across the steps it has no loss for
    (steps the script skipped, the discarded step before a timed block), never a break."""
    points = []
    for x, y in curve:
        if isinstance(y, (int, float)) and not isinstance(y, bool) and math.isfinite(y):
            points.append((float(x), float(y)))
    return sorted(points)


def _svg(series: Sequence[tuple[str, Sequence[tuple[float, float | None]]]], esc: Esc) -> str:
    joined = [(label, _joined(curve)) for label, curve in series]
    points = [p for _, c in joined for p in c]
    if not points:
        return ""
    width, height = 640, 260
    left, right, top, bottom = 56, 16, 12, 40  # room for the tick labels and axis titles
    x0, x1 = min(p[0] for p in points), max(p[0] for p in points)
    y0, y1 = min(p[1] for p in points), max(p[1] for p in points)
    x1 = x1 if x1 > x0 else x0 + 1
    if y1 <= y0:
        y0, y1 = y0 - max(abs(y0) * 0.05, 1e-9), y1 + max(abs(y1) * 0.05, 1e-9)

    def sx(x: float) -> float:
        return left + (x - x0) / (x1 - x0) * (width - left - right)

    def sy(y: float) -> float:
        return top + (y1 - y) / (y1 - y0) * (height - top - bottom)

    axis = 'stroke="#59636e" stroke-width="1"'
    grid = 'stroke="rgba(0,0,0,0.08)" stroke-width="1"'
    label = 'font-size="11" fill="#59636e"'
    base = height - bottom
    parts = [
        f'<svg viewBox="0 0 {width} {height}" role="img" class="loss-curve">',
        f'<line x1="{left}" y1="{top}" x2="{left}" y2="{base}" {axis}/>',
        f'<line x1="{left}" y1="{base}" x2="{width - right}" y2="{base}" {axis}/>',
    ]
    for y in nice_ticks(y0, y1):
        at = f"{sy(y):.1f}"
        parts.append(
            f'<line class="y-tick" x1="{left - 4}" y1="{at}" x2="{width - right}" y2="{at}" '
            f'{grid}/><text x="{left - 6}" y="{at}" dy="4" text-anchor="end" {label}>'
            f"{y:.4g}</text>"
        )
    for x in nice_ticks(x0, x1, most=8):
        if x != int(x):
            continue  # steps are whole
        at = f"{sx(x):.1f}"
        parts.append(
            f'<line class="x-tick" x1="{at}" y1="{base}" x2="{at}" y2="{base + 4}" {axis}/>'
            f'<text x="{at}" y="{base + 16}" text-anchor="middle" {label}>{int(x)}</text>'
        )
    parts.append(
        f'<text x="{(left + width - right) / 2:.0f}" y="{height - 4}" text-anchor="middle" '
        f"{label}>step</text>"
        f'<text x="12" y="{(top + base) / 2:.0f}" text-anchor="middle" {label} '
        f'transform="rotate(-90 12 {(top + base) / 2:.0f})">loss</text>'
    )
    colours = ["#4c72b0", "#dd8452", "#55a868", "#c44e52", "#8172b3", "#937860"]
    for i, (name, curve) in enumerate(joined):
        colour = colours[i % len(colours)]
        dash = ' stroke-dasharray="4 3"' if "parity" in name else ""
        line = " ".join(f"{sx(x):.1f},{sy(y):.1f}" for x, y in curve)
        parts.append(
            f'<polyline fill="none" stroke="{colour}" stroke-width="1.5"{dash} points="{line}">'
            f"<title>{esc(name)}</title></polyline>"
        )
        parts.append(
            f'<text x="{width - right - 180}" y="{top + 12 + 13 * i}" font-size="11" '
            f'fill="{colour}">{esc(name)}</text>'
        )
    parts.append("</svg>")
    return "".join(parts)


def html_section(model: SessionModel, esc: Esc) -> str:
    script = script_of(model)
    if script is None:
        return ""
    parts = [
        '<section id="script"><h2>Your script</h2>',
        f"<p><code>{esc(command_text(script))}</code></p>",
        "<ul>" + "".join(f"<li>{esc(n)}</li>" for n in notes(model)) + "</ul>",
        f'<p class="note">{esc(EXPLAIN)}</p>',
        table_html(SPLIT_HEADER, split_rows(model), esc),
        *(f'<p class="note">{esc(line)}</p>' for line in data_bound(model)),
        *(f'<p class="note">{esc(line)}</p>' for line in work_lines(model)),
    ]
    by_phase: dict[int, list[tuple[str, Curve]]] = {}
    for label, phase, curve in curves(model):
        by_phase.setdefault(phase, []).append((label, curve))
    for phase, series in by_phase.items():
        svg = _svg(series, esc)
        if svg:
            parts.append(f"<h3>Loss per step: {esc(phase_text(script, phase))}</h3>{svg}")
            parts.append(
                '<p class="note">Solid: each arm\'s first round (a compiled arm draws dropout '
                "its own way); dashed: the untimed parity runs from the same seeds (with "
                "inductor's fallback_random where the arm's curve first parted), whose curves "
                "a correct compile follows.</p>"
            )
    written = files(model)
    if written:
        items = "".join(f"<li><code>{esc(w)}</code></li>" for w in written)
        parts.append(f"<h3>Files the script wrote</h3><ul>{items}</ul>")
    parts.append("</section>")
    return "".join(parts)


def markdown_lines(model: SessionModel, md_text: Callable[[Any], str]) -> list[str]:
    script = script_of(model)
    if script is None:
        return []
    out = ["**Your script**", "", f"`{command_text(script)}`", ""]
    out += [f"- {md_text(n)}" for n in notes(model)]
    out += ["", md_text(EXPLAIN), "", *table_markdown(SPLIT_HEADER, split_rows(model), md_text)]
    out += ["", *(f"- _{md_text(line)}_" for line in data_bound(model))]
    out += [f"- {md_text(line)}" for line in work_lines(model)]
    series = curves(model)
    if series:
        steps = sorted({int(x) for _, _, c in series for x, _ in c})[:12]
        out += ["", "Loss per step (first steps):", ""]
        out.append("| curve | phase | " + " | ".join(str(s) for s in steps) + " |")
        out.append("|" + "---|" * (len(steps) + 2))
        for label, phase, curve in series:
            by_step = {int(x): y for x, y in curve}
            cells = [_loss(by_step.get(s)) for s in steps]
            out.append(
                f"| {md_text(label)} | {md_text(phase_text(script, phase))} | "
                + " | ".join(cells)
                + " |"
            )
    written = files(model)
    if written:
        out += ["", "Files the script wrote: " + ", ".join(f"`{w}`" for w in written)]
    return [*out, ""]
