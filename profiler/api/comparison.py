"""`compare(a, b)`: two sessions compared as `tcprof compare` compares them (the newer is
"after"), as a read-only value: the text the command prints, each arm and batch size before and
after, the warnings, and `worse`, the command's exit status as a flag (a CI gate asserts
`compare(baseline, session).worse is False`).

A comparison of nothing (no arm and batch size in common) raises ValueError, as the command
exits 2: a gate must not pass because nothing was compared.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from tcprof.profiler.api.session import Session
from tcprof.profiler.folders.files import read_session
from tcprof.profiler.model.session import SessionModel
from tcprof.profiler.report import compare as report_compare
from tcprof.profiler.report.changes import ComparedRow as ComparedRow
from tcprof.profiler.team_store.lookup import local_session

SessionLike = Session | str | os.PathLike[str]


@dataclass(frozen=True, repr=False)
class Comparison:
    """`text` is what `tcprof compare` prints; `worse` is True when a step time or a speedup
    got worse beyond noise (`regressions` says which, in its words)."""

    before: str
    after: str
    rows: tuple[ComparedRow, ...]
    warnings: tuple[str, ...]
    regressions: tuple[str, ...]
    text: str

    @property
    def worse(self) -> bool:
        return bool(self.regressions)

    def __str__(self) -> str:
        return self.text

    def __repr__(self) -> str:
        return self.text

    def _repr_html_(self) -> str:
        from tcprof.profiler.report.html import esc

        return f"<pre>{esc(self.text)}</pre>"


def _side(value: SessionLike) -> tuple[SessionModel, str]:
    """A session's model and its label (its folder's name, as the command labels it)."""
    if isinstance(value, Session):
        label = value.path.name if value.path else "(not saved)"
        return value, label
    if not isinstance(value, (str, os.PathLike)):
        raise TypeError(f"compare() takes Sessions or session paths, not {type(value).__name__}")
    path = Path(local_session(os.fspath(value)))  # a store name: its cached folder
    label = path.parent.name if path.name in ("session.json", "events.jsonl") else path.name
    return SessionModel.from_json(read_session(path)), label


def compare(
    a: SessionLike, b: SessionLike, margin: float = report_compare.DRIFT_MARGIN
) -> Comparison:
    """Two sessions (Session objects, folders or session.json files) in either order: the
    newer is "after"; a change counts where its interval lies wholly beyond `margin` (0.05:
    ±5%, the drift two sittings of the same code show). ValueError when a path is not a
    session, nothing is compared, or the margin is not a fraction from 0 to under 1."""
    (da, la), (db, lb) = _side(a), _side(b)
    result = report_compare.diff_sessions(da, db, margin)
    if result.compared_nothing:
        raise ValueError(report_compare.NOTHING_COMPARED)
    before, after = (lb, la) if result.swapped else (la, lb)
    return Comparison(
        before=before,
        after=after,
        rows=tuple(result.rows),
        warnings=tuple(result.warnings),
        regressions=tuple(result.regressions),
        text=report_compare.render(result, before, after),
    )
