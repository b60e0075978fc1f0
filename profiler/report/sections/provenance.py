"""A session's provenance in one line, as the terminal summary, report.md and report.html head
it: `commit 3f2a1c9 on main (dirty) · torch 2.13.0 · triton 3.5.0 · Python 3.11.7 · cpu
(AMD EPYC 7B13) · tcprof 0.1.0`."""

from __future__ import annotations

from tcprof.profiler.model.context import Provenance
from tcprof.profiler.model.session import SessionModel


def commit_text(provenance: Provenance) -> str | None:
    """`commit 3f2a1c9 on main (dirty)`; None outside a repository (or before schema 4)."""
    if not provenance.short:
        return None
    text = f"commit {provenance.short}"
    text += f" on {provenance.branch}" if provenance.branch else " (detached)"
    if provenance.dirty:
        text += " (dirty)"
    elif provenance.dirty is None:
        text += " (dirty state unknown)"
    return text


def provenance_parts(session: SessionModel) -> list[str]:
    """The line's parts: commit, torch, triton, Python, device (model), tcprof; each only when
    the session recorded it."""
    p = session.provenance if isinstance(session, SessionModel) else Provenance.of(session)
    parts = [commit_text(p)]
    parts += [f"torch {p.torch}" if p.torch else None]
    parts += [f"triton {p.triton}" if p.triton else None]
    parts += [f"Python {p.python}" if p.python else None]
    if p.device:
        parts.append(f"{p.device} ({p.device_name})" if p.device_name else p.device)
    parts += [f"tcprof {p.tcprof}" if p.tcprof else None]
    return [part for part in parts if part]


def provenance_line(session: SessionModel) -> str:
    return " · ".join(provenance_parts(session))
