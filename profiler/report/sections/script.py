"""The "Your script" part of the reports and of `tcprof run`'s summary, for a session of a
training script run unchanged (config.script): the command, what each arm compiled and where,
each step split into compute and the script's own time (a data-bound script named as such),
its unit of work (samples or tokens per step, as its model was given them), the loss curves of the timed arms and of the untimed parity runs, and the files the script
wrote. A session of a model file has no such part."""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from typing import Any

from tcprof.profiler.model.json_values import thaw
from tcprof.profiler.model.session import SessionModel
from tcprof.profiler.protocol import units

Esc = Callable[[Any], str]
SPLIT_HEADER = ["arm", "phase", "compute ms", "own ms", "step ms", "own share", "start-up s"]
EXPLAIN = (
    "A step of a script is one optimizer step (gradient accumulation's micro-batches are one "
    "step). Compute runs from the step's first training forward to the end of its optimizer "
    "step; it is the median ms of the summary and what the speedup compares. The script's own "
    "time runs from the step before's end to that forward: data loading, logging, evaluation, "
    "checkpoints. torch.compile changes compute; a script whose own time is half its step or "
    "more is data-bound, and compiling speeds up only the other half."
)


def script_of(session: SessionModel | Mapping[str, Any]) -> dict[str, Any] | None:
    """The script's options (None: a model file's session), a copy: a run's options stay as
    given (model/raw.py)."""
    config = session.config if isinstance(session, SessionModel) else session.get("config")
    script = (config or {}).get("script")
    return thaw(script) if isinstance(script, Mapping) else None


def command_text(script: Mapping[str, Any], value: Any = None) -> str:
    target = ["-m", str(script.get("module"))] if script.get("module") else [str(script["path"])]
    args = [str(a) for a in script.get("args") or []]
    sweep = script.get("sweep")
    if sweep and value is not None:
        args = [a.replace("{" + str(sweep) + "}", str(value)) for a in args]
    return " ".join([str(script.get("python") or "python"), *target, *args])


def phase_text(script: Mapping[str, Any], batch_size: Any) -> str:
    """'batch_size=8' for a sweep's phase; 'the script' for a script without one."""
    sweep = script.get("sweep")
    return f"{sweep}={batch_size}" if sweep else "the script"


def work_unit(session_dict: Mapping[str, Any]) -> str:
    """What a script's throughput counts: its `--unit`, else what its rows measured (tokens
    where its model was given token ids, else samples, else steps)."""
    script = script_of(session_dict) or {}
    if script.get("unit"):
        return str(script["unit"])
    for arm in session_dict.get("arms") or []:
        for row in arm.get("results") or []:
            unit = (row.get("script") or {}).get("unit")
            if unit in ("tokens", "samples"):
                return str(unit)
    return "steps" if script else "samples"


def work_text(row: Mapping[str, Any], unit: str) -> str:
    """A row's measured work per step in the unit: '2,048 tokens' ('-': not seen)."""
    fig = row.get("script") or {}
    value = fig.get(f"{unit}_per_step") if unit != "steps" else 1
    return f"{units.count(value)} {unit}" if units.number(value) is not None else units.MISSING


def work_lines(session_dict: Mapping[str, Any]) -> list[str]:
    """How the script's throughput was counted, with each phase's work per step: 'throughput
    in tokens/s: 2,048 tokens per step (...; padding counted)'."""
    script = script_of(session_dict)
    if script is None:
        return []
    unit = work_unit(session_dict)
    seen: dict[str, None] = {}
    for arm in session_dict.get("arms") or []:
        for row in arm.get("results") or []:
            fig = row.get("script") or {}
            parts = [
                f"{units.count(fig[k])} {word}"
                for k, word in (("tokens_per_step", "tokens"), ("samples_per_step", "samples"))
                if isinstance(fig.get(k), (int, float))
            ]
            if parts:
                at = (
                    f" at {phase_text(script, row.get('batch_size'))}"
                    if script.get("sweep")
                    else ""
                )
                seen[" and ".join(parts) + " per step" + at] = None
    how = {
        "tokens": "batch x sequence of the token ids its model is given, every micro-batch of "
        "a step summed; padding counted",
        "samples": "the leading dimension of the batch its model is given, every micro-batch "
        "of a step summed",
        "steps": "optimizer steps",
    }[unit]
    measured = "; ".join(seen) if seen else "its model's inputs showed no batch"
    given = " (--unit)" if script.get("unit") else ""
    return [f"throughput in {unit}/s{given} ({how}): {measured}"]


def _ms(value: Any) -> str:
    return units.ms(value, unit=False)  # the column's header says ms


def split_rows(session_dict: Mapping[str, Any]) -> list[list[str]]:
    script = script_of(session_dict) or {}
    out = []
    for arm in session_dict.get("arms") or []:
        for row in arm.get("results") or []:
            fig = row.get("script") or {}
            share = fig.get("own_share")
            share_text = units.percent(share)
            if fig.get("data_bound"):
                share_text += " (data-bound)"
            out.append(
                [
                    str(arm.get("name")),
                    phase_text(script, row.get("batch_size")),
                    _ms(fig.get("compute_median_ms")),
                    _ms(fig.get("own_median_ms")),
                    _ms(fig.get("step_median_ms")),
                    share_text,
                    units.seconds(fig.get("startup_s"), unit=False),
                ]
            )
    return out


def notes(session_dict: Mapping[str, Any]) -> list[str]:
    """Per arm, what its first round did: the model, what was compiled and where."""
    out = []
    for arm in session_dict.get("arms") or []:
        for note in (arm.get("script") or {}).get("notes") or []:
            if note.get("kind") != "model" or arm.get("index") == 0:
                out.append(f"{arm.get('name')}: {note.get('text')}")
    return out


def files(session_dict: Mapping[str, Any]) -> list[str]:
    found: dict[str, Any] = {}
    for arm in session_dict.get("arms") or []:
        for item in (arm.get("script") or {}).get("files") or []:
            found[str(item.get("path"))] = item.get("bytes")
    return [
        f"{p} ({units.count(b)} bytes)" if isinstance(b, int) else p
        for p, b in sorted(found.items())
    ]


def data_bound(session_dict: Mapping[str, Any]) -> list[str]:
    """'eager at batch_size=8: the script's own time is 62% of its step (data-bound)'."""
    script = script_of(session_dict) or {}
    out = []
    for arm in session_dict.get("arms") or []:
        for row in arm.get("results") or []:
            fig = row.get("script") or {}
            if fig.get("data_bound"):
                at = (
                    f" at {phase_text(script, row.get('batch_size'))}"
                    if script.get("sweep")
                    else ""
                )
                out.append(
                    f"{arm.get('name')}{at}: the "
                    f"script's own time is {units.percent(fig['own_share'])} of its step (data-bound: "
                    "compiling speeds up only the rest)"
                )
    return out


def text_lines(
    session_dict: Mapping[str, Any], render_table: Callable[[list[str], list[list[str]]], str]
) -> list[str]:
    """The summary's lines for a script session (none for a model file)."""
    script = script_of(session_dict)
    if script is None:
        return []
    lines = [f"script: {command_text(script)}"]
    lines += [f"  {n}" for n in notes(session_dict)]
    rows = split_rows(session_dict)
    if rows:
        table = render_table(SPLIT_HEADER, rows)
        lines += ["", "compute and the script's own time per step (medians):"]
        lines += ["  " + line for line in table.splitlines()]
    lines += [f"  note: {line}" for line in data_bound(session_dict)]
    lines += [f"  {line}" for line in work_lines(session_dict)]
    written = files(session_dict)
    if written:
        lines.append(f"the script wrote: {', '.join(written)}")
    return lines


def accuracy_note(session_dict: Mapping[str, Any]) -> str | None:
    """The method note of a script's loss parity (None: no parity ran)."""
    acc = [
        r["accuracy"]
        for a in session_dict.get("arms") or []
        for r in a.get("results") or []
        if (r.get("accuracy") or {}).get("curves")
    ]
    if not acc:
        return None
    tol = acc[0]
    return (
        f"accuracy (loss parity): the script's first {tol.get('steps')} steps run untimed three "
        "times from the same seeds, eager, eager again (the two must agree, else the script is "
        "nondeterministic) and the arm with inductor's fallback_random, in a process of its "
        f"own; a step passes when |arm - eager| <= {tol.get('atol'):g} + {tol.get('rtol'):g} x "
        "|eager|, and a failure names the first step where the curves part"
    )


# -- loss curves ------------------------------------------------------------------------------
def curves(session_dict: Mapping[str, Any]) -> list[tuple[str, Any, list[list[float]]]]:
    """(label, phase, [[step, loss], ...]): each timed arm's first round, and the untimed parity
    runs (eager, and the arm with fallback_random) of each compiled arm."""
    out = []
    for arm in session_dict.get("arms") or []:
        for row in arm.get("results") or []:
            curve = (row.get("script") or {}).get("loss_curve") or []
            if curve:
                out.append((str(arm.get("name")), row.get("batch_size"), curve))
            acc = row.get("accuracy") or {}
            for key, label in (("eager", "eager (parity run)"), ("arm", "parity run")):
                values = (acc.get("curves") or {}).get(key) or []
                points = [[i, v] for i, v in enumerate(values) if isinstance(v, (int, float))]
                if points and (key == "arm" or not any(c[0] == label for c in out)):
                    name = label if key == "eager" else f"{arm.get('name')} ({label})"
                    out.append((name, row.get("batch_size"), points))
    return out


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


def _joined(curve: list[list[float]]) -> list[tuple[float, float]]:
    """A curve's finite points in step order: one line across the steps it has no loss for
    (steps the script skipped, the discarded step before a timed block), never a break."""
    points = []
    for x, y in curve:
        if isinstance(y, (int, float)) and not isinstance(y, bool) and math.isfinite(y):
            points.append((float(x), float(y)))
    return sorted(points)


def _svg(series: list[tuple[str, list[list[float]]]], esc: Esc) -> str:
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


def html_section(session_dict: Mapping[str, Any], esc: Esc) -> str:
    script = script_of(session_dict)
    if script is None:
        return ""
    head = "".join(f"<th>{esc(h)}</th>" for h in SPLIT_HEADER)
    body = "".join(
        "<tr>" + "".join(f"<td>{esc(c)}</td>" for c in r) + "</tr>"
        for r in split_rows(session_dict)
    )
    parts = [
        '<section id="script"><h2>Your script</h2>',
        f"<p><code>{esc(command_text(script))}</code></p>",
        "<ul>" + "".join(f"<li>{esc(n)}</li>" for n in notes(session_dict)) + "</ul>",
        f'<p class="note">{esc(EXPLAIN)}</p>',
        f'<div class="table-wrap"><table><thead><tr>{head}</tr></thead>'
        f"<tbody>{body}</tbody></table></div>",
        *(f'<p class="note">{esc(line)}</p>' for line in data_bound(session_dict)),
        *(f'<p class="note">{esc(line)}</p>' for line in work_lines(session_dict)),
    ]
    by_phase: dict[Any, list[tuple[str, list[list[float]]]]] = {}
    for label, phase, curve in curves(session_dict):
        by_phase.setdefault(phase, []).append((label, curve))
    for phase, series in by_phase.items():
        svg = _svg(series, esc)
        if svg:
            parts.append(f"<h3>Loss per step: {esc(phase_text(script, phase))}</h3>{svg}")
            parts.append(
                '<p class="note">Solid: each arm\'s first round (a compiled arm draws dropout '
                "its own way); dashed: the untimed parity runs from the same seeds, with "
                "inductor's fallback_random, whose curves a correct compile follows.</p>"
            )
    written = files(session_dict)
    if written:
        items = "".join(f"<li><code>{esc(w)}</code></li>" for w in written)
        parts.append(f"<h3>Files the script wrote</h3><ul>{items}</ul>")
    parts.append("</section>")
    return "".join(parts)


def markdown_lines(session_dict: Mapping[str, Any], md_text: Callable[[Any], str]) -> list[str]:
    script = script_of(session_dict)
    if script is None:
        return []
    out = ["**Your script**", "", f"`{command_text(script)}`", ""]
    out += [f"- {md_text(n)}" for n in notes(session_dict)]
    out += ["", md_text(EXPLAIN), "", "| " + " | ".join(SPLIT_HEADER) + " |"]
    out.append("|" + "---|" * len(SPLIT_HEADER))
    out += ["| " + " | ".join(md_text(c) for c in r) + " |" for r in split_rows(session_dict)]
    out += ["", *(f"- _{md_text(line)}_" for line in data_bound(session_dict))]
    out += [f"- {md_text(line)}" for line in work_lines(session_dict)]
    series = curves(session_dict)
    if series:
        steps = sorted({int(x) for _, _, c in series for x, _ in c})[:12]
        out += ["", "Loss per step (first steps):", ""]
        out.append("| curve | phase | " + " | ".join(str(s) for s in steps) + " |")
        out.append("|" + "---|" * (len(steps) + 2))
        for label, phase, curve in series:
            by_step = {int(x): y for x, y in curve}
            cells = [f"{by_step[s]:.4g}" if s in by_step else "" for s in steps]
            out.append(
                f"| {md_text(label)} | {md_text(phase_text(script, phase))} | "
                + " | ".join(cells)
                + " |"
            )
    written = files(session_dict)
    if written:
        out += ["", "Files the script wrote: " + ", ".join(f"`{w}`" for w in written)]
    return [*out, ""]
