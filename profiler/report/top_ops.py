"""The "Top operators (torch.profiler)" part of the reports, from results[].profile.top_ops.

Only sessions run with a torch.profiler pass (`--profile-steps N`, or the GUI's "torch.profiler
steps") have it; the reports leave the section out otherwise. Operator names come from torch
(and, for custom ops, from the user's code), so they are escaped like everything else.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

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


def _ms(value: Any) -> str:
    return f"{value:.3f}" if isinstance(value, (int, float)) else "-"


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
            f'<p class="muted">{esc(prof.get("steps"))} profiled step(s); trace '
            f'<span class="mono">{esc(trace)}</span></p>'
            '<div class="table-wrap"><table><thead><tr><th>operator</th>'
            '<th class="num">calls/step</th><th class="num">self ms/step</th>'
            f'<th class="num">total ms/step</th></tr></thead><tbody>{rows}</tbody></table></div>'
        )
    parts.append("</section>")
    return "".join(parts)


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
        out.append(f"- **{md_text(name)}** bs={md_text(bs)}: {ops}")
    return [*out, ""]
