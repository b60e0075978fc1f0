"""A session's provenance in one line, as the terminal summary, report.md and report.html head
it: `commit 3f2a1c9 on main (dirty) · torch 2.13.0 · triton 3.5.0 · Python 3.11.7 · cpu
(AMD EPYC 7B13) · tcprof 0.1.0`."""

from __future__ import annotations

from typing import Any


def commit_text(git: dict[str, Any] | None) -> str | None:
    """`commit 3f2a1c9 on main (dirty)`; None outside a repository (or before schema 4)."""
    if not git or not git.get("short"):
        return None
    text = f"commit {git['short']}"
    text += f" on {git['branch']}" if git.get("branch") else " (detached)"
    if git.get("dirty"):
        text += " (dirty)"
    elif git.get("dirty") is None:
        text += " (dirty state unknown)"
    return text


def provenance_parts(session_dict: dict[str, Any]) -> list[str]:
    """The line's parts: commit, torch, triton, Python, device (model), tcprof; each only when
    the session recorded it."""
    env = session_dict.get("environment") or {}
    provenance = session_dict.get("provenance") or {}
    parts = [commit_text(provenance.get("git"))]
    parts += [f"torch {env['torch']}" if env.get("torch") else None]
    parts += [f"triton {env['triton']}" if env.get("triton") else None]
    parts += [f"Python {env['python']}" if env.get("python") else None]
    if env.get("device"):
        model = env.get("device_name")
        parts.append(f"{env['device']} ({model})" if model else str(env["device"]))
    parts += [f"tcprof {provenance['tcprof']}" if provenance.get("tcprof") else None]
    return [p for p in parts if p]


def provenance_line(session_dict: dict[str, Any]) -> str:
    return " · ".join(provenance_parts(session_dict))
