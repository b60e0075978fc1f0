"""What `tcprof run` prints at its end: the table grouped by batch size, the verdict, and what
TorchDynamo did per arm with its advice."""

from __future__ import annotations

from tcprof.profiler.analysis import regional, stragglers
from tcprof.profiler.analysis.schedule import SavedSchedule
from tcprof.profiler.analysis.user_words import plain_reason
from tcprof.profiler.config.script import ScriptSource
from tcprof.profiler.model.arm import Arm
from tcprof.profiler.model.session import SessionModel
from tcprof.profiler.protocol import units
from tcprof.profiler.protocol.compile_terms import frame_text
from tcprof.profiler.protocol.event_text import recompile_limit_hit
from tcprof.profiler.report.sections import ladder as ladder_section
from tcprof.profiler.report.sections import script as script_section
from tcprof.profiler.report.sections.method import method_notes, steps_text
from tcprof.profiler.report.sections.provenance import provenance_line
from tcprof.profiler.report.sections.table import render_table, table_rows
from tcprof.profiler.report.sections.timeline import summary_line
from tcprof.profiler.run.apply_advice import before_after


def render_summary(model: SessionModel) -> str:
    """The summary of a session read into the model (a dict: `SessionModel.from_json` first)."""
    session_dict = model.to_dict()  # for the sections that still read session.json's dict
    header, rows = table_rows(model)
    provenance = provenance_line(model)
    parts = [provenance, render_table(header, rows)] if provenance else [render_table(header, rows)]
    verdicts = model.verdicts
    if verdicts:
        parts.append("\nverdict:\n" + "\n".join(f"  {line}" for line in verdicts))
    notes = list(model.notes)
    compared = compared_any(model)
    if not compared:  # no round measured a comparison: its order is no one's concern
        notes = [n for n in notes if n != SavedSchedule.of(model.data.get("schedule")).note]
    if notes:
        parts.append("\n".join(f"  note: {line}" for line in notes))
    for arm in model.arms:
        if arm.error:
            parts.append(f"\n{arm.name}: error ({arm.error.kind}): {arm.error.message}")
    script = script_section.text_lines(model, render_table)
    if script:
        parts.append("\n" + "\n".join(script))
    insight = render_insight(model)
    if insight:
        parts.append(insight)
    for item in before_after(session_dict):
        parts.append(
            f"\napplied advice ({item.apply}): {item.before} recompiled "
            f"{item.recompiles_before} time(s), {item.after} {item.recompiles_after} "
            "(measured after the main rounds, not interleaved with them)"
        )
    ladder = ladder_section.text_lines(model)
    if ladder:
        parts.append("\n" + "\n".join(ladder))
    tradeoffs = regional.text_lines(model)
    if tradeoffs:
        parts.append("\n" + "\n".join(tradeoffs))
    ranks = stragglers.text_lines(model)
    if ranks:
        parts.append("\n" + "\n".join(ranks))
    if model.options.steps:
        parts.append(f"steps: {steps_text(model)}")
    spent = summary_line(model)
    if spent:
        parts.append(f"time: {spent}")
    parts += [
        note for note in method_notes(model) if compared or not note.startswith(INTERVAL_NOTES)
    ]
    return "\n".join(parts)


# method notes about the speedup's interval and the rounds' order ("run 3 or more rounds")
INTERVAL_NOTES = ("speedup:", "order:")


def compared_any(session: SessionModel) -> bool:
    """Whether any row holds a speedup: when every arm failed (or the baseline did) there is
    no interval to explain, and the footer would end a failed run on rounds that never ran."""
    return any(row.speedup is not None for row in session.rows)


def render_insight(model: SessionModel) -> str:
    lines: list[str] = []
    compiled = [a for a in model.arms if a.backend != "eager" and a.rows]
    if compiled:
        script = model.options.script
        per = "phase" if script else "batch size"
        lines.append(f"\nwhat TorchDynamo did per {per}:")
        width = max(len(a.name) for a in compiled)
        for arm in compiled:
            cells = [
                f"{_phase(script, r.batch_size)} {(r.compile_status or r.status).replace('_', ' ')}"
                for r in arm.rows
            ]
            lines.append(f"  {arm.name.ljust(width)}  " + " · ".join(cells))
    for arm in model.arms:
        if not (arm.graph_breaks or arm.recompiles or arm.fallbacks or arm.advice):
            continue
        lines.append(f"\n{arm.name}:")
        for gb in arm.graph_breaks:
            where = f"{gb.file}:{gb.line}" if gb.file else "?"
            lines.append(f"  graph break x{gb.count} at {where}: {gb.reason}")
        for rc in arm.recompiles:
            lines.append(
                f"  recompile at bs={rc.batch_size} ({frame_text(rc.frame)}, "
                f"{units.seconds(rc.seconds)} by torch's compile timer): "
                f"{plain_reason(rc)}"
            )
        for fb in arm.fallbacks:
            lines.append(f"  {recompile_limit_hit(fb.frame)}")
        lines += advice_lines(arm)
    return "\n".join(lines)


def _phase(script: ScriptSource | None, batch_size: int) -> str:
    return script_section.phase_text(script, batch_size) if script else f"bs {batch_size}"


def advice_lines(arm: Arm) -> list[str]:
    """The arm's recompile advice as terminal lines: cause, then fix (and what tcprof can try)."""
    out = []
    for item in arm.advice:
        out.append(f"  advice: {item.message}")
        out.append(f"    fix: {item.fix}")
        if item.apply:
            out.append(f"    tcprof can verify it: --apply-advice adds an arm with {item.apply}")
    return out
