"""The "Top operators (torch.profiler)" part of the reports, from results[].profile.top_ops.

Only sessions run with a torch.profiler pass (`--profile-steps N`, or the GUI's "torch.profiler
steps") have it; the reports leave the section out otherwise. Operator names come from torch
(and, for custom ops, from the user's code), so they are escaped like everything else.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from tcprof.profiler.model.profile import Profile
from tcprof.profiler.model.session import SessionModel
from tcprof.profiler.protocol import units

Esc = Callable[[Any], str]
MD_TOP = 5  # report.md is for pull requests: a short list per arm and batch size


@dataclass(frozen=True)
class OpMove:
    """One operator of either top list: its self ms per step in the baseline and in the compiled
    arm (None: not in that arm's top list), and the time moved (compiled less eager)."""

    name: str
    eager_ms: float | None
    compiled_ms: float | None
    moved_ms: float


def profiles(session: SessionModel) -> list[tuple[str, int, Profile]]:
    """(arm name, batch size, profile) for every result that has a torch.profiler pass."""
    return [
        (arm.name, r.batch_size, r.profile)
        for arm in session.arms
        for r in arm.rows
        if r.profile is not None and r.profile.top_ops
    ]


def _profile_of(model: SessionModel, arm_name: str | None, bs: int) -> Profile | None:
    return next(
        (prof for name, size, prof in profiles(model) if name == arm_name and size == bs),
        None,
    )


def comparable(model: SessionModel) -> list[tuple[str, int]]:
    """(compiled arm, batch size) pairs that have a profile, as has the baseline at that size."""
    found = profiles(model)
    eager_sizes = {bs for name, bs, _prof in found if name == model.baseline}
    return [(name, bs) for name, bs, _prof in found if name != model.baseline and bs in eager_sizes]


def moves(model: SessionModel, arm_name: str, bs: int) -> list[OpMove]:
    """Top operators of the baseline and of one compiled arm at one batch size, side by side.

    One entry per operator in either top list: its self ms per step in each (None: not in that
    arm's top list, so below it or absent, e.g. an eager aten op fused away by Inductor), and
    the time moved (compiled less eager, a missing side counted as 0), largest move first."""

    def by_name(prof: Profile | None) -> dict[str, float]:
        ops = prof.top_ops if prof else ()
        return {str(op.name): op.self_ms_per_step for op in ops if op.self_ms_per_step is not None}

    before = by_name(_profile_of(model, model.baseline, bs))
    after = by_name(_profile_of(model, arm_name, bs))
    found = [
        OpMove(
            name,
            before.get(name),
            after.get(name),
            round((after.get(name) or 0.0) - (before.get(name) or 0.0), 6),
        )
        for name in dict.fromkeys([*before, *after])
    ]
    return sorted(found, key=lambda m: -abs(m.moved_ms))


def op_comparison(session: SessionModel, arm_name: str, bs: int) -> list[dict[str, Any]]:
    """`moves` as plain dicts (name, eager_ms, compiled_ms, moved_ms), for the window's table."""
    return [asdict(m) for m in moves(session, arm_name, bs)]


def comparison_problem(model: SessionModel, arm_name: str, bs: int) -> str | None:
    """Why the two profiles' operator times cannot be read as time saved or added (either
    side does not describe its measured step), or None."""
    for name in (model.baseline, arm_name):
        prof = _profile_of(model, name, bs)
        if prof and prof.mismatch:
            return f"{name}: {prof.mismatch}; the moves below are not savings"
    return None


def profile_note(prof: Profile | Mapping[str, Any]) -> str:
    """'5 profiled step(s), 0.412 ms each (measured median 0.398 ms)' and any mismatch."""
    typed = prof if isinstance(prof, Profile) else Profile.of({"steps": None, **prof})
    if typed is None:
        return "None profiled step(s)"
    text = f"{typed.steps} profiled step(s)"
    if typed.step_ms is not None:
        text += f", {units.ms(typed.step_ms)} each"
    return text + (f". Flagged: {typed.mismatch}" if typed.mismatch else "")


def _ms(value: float | None) -> str:
    return units.ms(value, unit=False)  # the column's header says ms


def html_section(model: SessionModel, esc: Esc) -> str:
    found = profiles(model)
    if not found:
        return ""
    parts = [
        '<section id="profile"><h2>Top operators (torch.profiler)</h2>'
        '<p class="note">Operators by self time per step, from a separate torch.profiler pass '
        "after the measured steps (so the profiler's overhead is not in the timings above). "
        "The Chrome/Perfetto trace of each pass is beside the session.</p>"
    ]
    for name, bs, prof in found:
        rows = "".join(
            f'<tr><td class="mono wrap">{esc(op.name)}</td>'
            f'<td class="num">{esc("-" if op.calls is None else op.calls)}</td>'
            f'<td class="num">{esc(_ms(op.self_ms_per_step))}</td>'
            f'<td class="num">{esc(_ms(op.total_ms_per_step))}</td></tr>'
            for op in prof.top_ops
        )
        trace = Path(prof.path).name if prof.path else "-"
        parts.append(
            f"<h3>{esc(name)} · bs {esc(bs)}</h3>"
            f'<p class="{"bad" if prof.mismatch else "muted"}">'
            f"{esc(profile_note(prof))}; trace "
            f'<span class="mono">{esc(trace)}</span></p>'
            '<div class="table-wrap"><table><thead><tr><th>operator</th>'
            '<th class="num">calls/step</th><th class="num">self ms/step</th>'
            f'<th class="num">total ms/step</th></tr></thead><tbody>{rows}</tbody></table></div>'
        )
    parts += [_comparison_html(model, name, bs, esc) for name, bs in comparable(model)]
    parts.append("</section>")
    return "".join(parts)


def _comparison_html(model: SessionModel, arm_name: str, bs: int, esc: Esc) -> str:
    problem = comparison_problem(model, arm_name, bs)

    def tone(moved: float) -> str:
        return "" if problem or not moved else "good" if moved < 0 else "bad"

    rows = "".join(
        f'<tr><td class="mono wrap">{esc(m.name)}</td>'
        f'<td class="num">{esc(_ms(m.eager_ms))}</td>'
        f'<td class="num">{esc(_ms(m.compiled_ms))}</td>'
        f'<td class="num {tone(m.moved_ms)}">'
        f"{esc(units.ms(m.moved_ms, unit=False, plus=True))}</td></tr>"
        for m in moves(model, arm_name, bs)
    )
    warning = f'<p class="bad">{esc(problem)}.</p>' if problem else ""
    baseline = model.baseline
    return (
        f"<h3>{esc(baseline)} against {esc(arm_name)} · bs {esc(bs)}</h3>"
        '<p class="muted">Self ms per step of each top operator; moved = compiled less eager '
        "(an operator missing from one side's top list counts as 0 there).</p>"
        f"{warning}"
        '<div class="table-wrap"><table><thead><tr><th>operator</th>'
        f'<th class="num">{esc(baseline)} ms</th><th class="num">{esc(arm_name)} ms</th>'
        f'<th class="num">moved ms</th></tr></thead><tbody>{rows}</tbody></table></div>'
    )


def markdown_lines(session: SessionModel, md_text: Callable[[Any], str]) -> list[str]:
    """A short list: the top few operators per arm and batch size."""
    found = profiles(session)
    if not found:
        return []
    out = ["**Top operators (torch.profiler, self ms per step)**", ""]
    for name, bs, prof in found:
        ops = ", ".join(
            f"{md_text(op.name)} {_ms(op.self_ms_per_step)}" for op in prof.top_ops[:MD_TOP]
        )
        flag = f" (flagged: {md_text(prof.mismatch)})" if prof.mismatch else ""
        out.append(f"- **{md_text(name)}** bs={md_text(bs)}: {ops}{flag}")
    return [*out, ""]
