"""The "Top operators (torch.profiler)" part of the reports, from results[].profile.top_ops.

Only sessions run with a torch.profiler pass (`--profile-steps N`, or the GUI's "torch.profiler
steps") have it; the reports leave the section out otherwise. Operator names come from torch
(and, for custom ops, from the user's code), so they are escaped like everything else.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from tcprof.profiler.protocol import units

Esc = Callable[[Any], str]
MD_TOP = 5  # report.md is for pull requests: a short list per arm and batch size


def profiles(session_dict: dict[str, Any]) -> list[tuple[str, Any, dict[str, Any]]]:
    """(arm name, batch size, profile) for every result that has a torch.profiler pass."""
    return [
        (str(arm.get("name")), r.get("batch_size"), r["profile"])
        for arm in session_dict.get("arms") or []
        for r in arm.get("results") or []
        if isinstance(r.get("profile"), dict) and r["profile"].get("top_ops")
    ]


def _profile_of(session_dict: dict[str, Any], arm_name: Any, bs: Any) -> dict[str, Any] | None:
    return next(
        (prof for name, size, prof in profiles(session_dict) if name == arm_name and size == bs),
        None,
    )


def comparable(session_dict: dict[str, Any]) -> list[tuple[str, Any]]:
    """(compiled arm, batch size) pairs that have a profile, as has the baseline at that size."""
    baseline = session_dict.get("baseline")
    eager_sizes = {bs for name, bs, _prof in profiles(session_dict) if name == baseline}
    return [
        (name, bs)
        for name, bs, _prof in profiles(session_dict)
        if name != baseline and bs in eager_sizes
    ]


def op_comparison(session_dict: dict[str, Any], arm_name: Any, bs: Any) -> list[dict[str, Any]]:
    """Top operators of the baseline and of one compiled arm at one batch size, side by side.

    One entry per operator in either top list: its self ms per step in each (None: not in that
    arm's top list, so below it or absent, e.g. an eager aten op fused away by Inductor), and
    the time moved (compiled less eager, a missing side counted as 0), largest move first."""
    eager = _profile_of(session_dict, session_dict.get("baseline"), bs) or {}
    compiled = _profile_of(session_dict, arm_name, bs) or {}

    def by_name(prof: dict[str, Any]) -> dict[str, float]:
        return {
            str(op.get("name")): float(op["self_ms_per_step"])
            for op in prof.get("top_ops") or []
            if isinstance(op.get("self_ms_per_step"), (int, float))
        }

    before, after = by_name(eager), by_name(compiled)
    rows = [
        {
            "name": name,
            "eager_ms": before.get(name),
            "compiled_ms": after.get(name),
            "moved_ms": round((after.get(name) or 0.0) - (before.get(name) or 0.0), 6),
        }
        for name in dict.fromkeys([*before, *after])
    ]
    return sorted(rows, key=lambda r: -abs(r["moved_ms"]))


def comparison_problem(session_dict: dict[str, Any], arm_name: Any, bs: Any) -> str | None:
    """Why the two profiles' operator times cannot be read as time saved or added (either
    side does not describe its measured step), or None."""
    for name in (session_dict.get("baseline"), arm_name):
        mismatch = (_profile_of(session_dict, name, bs) or {}).get("mismatch")
        if mismatch:
            return f"{name}: {mismatch}; the moves below are not savings"
    return None


def profile_note(prof: dict[str, Any]) -> str:
    """'5 profiled step(s), 0.412 ms each (measured median 0.398 ms)' and any mismatch."""
    text = f"{prof.get('steps')} profiled step(s)"
    if isinstance(prof.get("step_ms"), (int, float)):
        text += f", {units.ms(prof['step_ms'])} each"
    return text + (f". Flagged: {prof['mismatch']}" if prof.get("mismatch") else "")


def _ms(value: Any) -> str:
    return units.ms(value, unit=False)  # the column's header says ms


def html_section(session_dict: dict[str, Any], esc: Esc) -> str:
    found = profiles(session_dict)
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
            f'<tr><td class="mono wrap">{esc(op.get("name"))}</td>'
            f'<td class="num">{esc(op.get("calls", "-"))}</td>'
            f'<td class="num">{esc(_ms(op.get("self_ms_per_step")))}</td>'
            f'<td class="num">{esc(_ms(op.get("total_ms_per_step")))}</td></tr>'
            for op in prof.get("top_ops") or []
        )
        trace = Path(str(prof.get("path"))).name if prof.get("path") else "-"
        parts.append(
            f"<h3>{esc(name)} · bs {esc(bs)}</h3>"
            f'<p class="{"bad" if prof.get("mismatch") else "muted"}">'
            f"{esc(profile_note(prof))}; trace "
            f'<span class="mono">{esc(trace)}</span></p>'
            '<div class="table-wrap"><table><thead><tr><th>operator</th>'
            '<th class="num">calls/step</th><th class="num">self ms/step</th>'
            f'<th class="num">total ms/step</th></tr></thead><tbody>{rows}</tbody></table></div>'
        )
    parts += [
        _comparison_html(session_dict, name, bs, esc) for name, bs in comparable(session_dict)
    ]
    parts.append("</section>")
    return "".join(parts)


def _comparison_html(session_dict: dict[str, Any], arm_name: str, bs: Any, esc: Esc) -> str:
    problem = comparison_problem(session_dict, arm_name, bs)

    def tone(moved: float) -> str:
        return "" if problem or not moved else "good" if moved < 0 else "bad"

    rows = "".join(
        f'<tr><td class="mono wrap">{esc(r["name"])}</td>'
        f'<td class="num">{esc(_ms(r["eager_ms"]))}</td>'
        f'<td class="num">{esc(_ms(r["compiled_ms"]))}</td>'
        f'<td class="num {tone(r["moved_ms"])}">'
        f"{esc(units.ms(r['moved_ms'], unit=False, plus=True))}</td></tr>"
        for r in op_comparison(session_dict, arm_name, bs)
    )
    warning = f'<p class="bad">{esc(problem)}.</p>' if problem else ""
    baseline = session_dict.get("baseline")
    return (
        f"<h3>{esc(baseline)} against {esc(arm_name)} · bs {esc(bs)}</h3>"
        '<p class="muted">Self ms per step of each top operator; moved = compiled less eager '
        "(an operator missing from one side's top list counts as 0 there).</p>"
        f"{warning}"
        '<div class="table-wrap"><table><thead><tr><th>operator</th>'
        f'<th class="num">{esc(baseline)} ms</th><th class="num">{esc(arm_name)} ms</th>'
        f'<th class="num">moved ms</th></tr></thead><tbody>{rows}</tbody></table></div>'
    )


def markdown_lines(session_dict: dict[str, Any], md_text: Callable[[Any], str]) -> list[str]:
    """A short list: the top few operators per arm and batch size."""
    found = profiles(session_dict)
    if not found:
        return []
    out = ["**Top operators (torch.profiler, self ms per step)**", ""]
    for name, bs, prof in found:
        ops = ", ".join(
            f"{md_text(op.get('name'))} {_ms(op.get('self_ms_per_step'))}"
            for op in (prof.get("top_ops") or [])[:MD_TOP]
        )
        flag = f" (flagged: {md_text(prof['mismatch'])})" if prof.get("mismatch") else ""
        out.append(f"- **{md_text(name)}** bs={md_text(bs)}: {ops}{flag}")
    return [*out, ""]
