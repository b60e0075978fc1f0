"""`compare(a, b)`: two sessions compared as `tcprof compare` compares them (the newer is
"after"), as a read-only value: the text the command prints, each arm and batch size before and
after, the warnings, and `worse`, the command's exit status as a flag (a CI gate asserts
`compare(baseline, session).worse is False`).

A comparison of nothing (no arm and batch size in common) raises ValueError, as the command
exits 2: a gate must not pass because nothing was compared.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, fields
from pathlib import Path
from typing import Any

from tcprof.profiler.api.session import Session
from tcprof.profiler.folders.files import read_session
from tcprof.profiler.model.figures import Interval
from tcprof.profiler.report import compare as report_compare
from tcprof.profiler.team_store.lookup import local_session

SessionLike = Session | str | os.PathLike[str]


@dataclass(frozen=True)
class ComparedRow:
    """One arm at one batch size before and after. Directions are better, worse, unchanged or
    n/a; the step-time change (+0.05: 5% slower) has a 95% interval from both sessions' process
    medians, the speedup's change (+0.10: a 10% higher speedup) one from the two sessions'
    paired log speedups and their combined standard error. A session of one round has no
    interval: the intervals are None and the directions n/a."""

    arm: str
    batch_size: int
    median_ms_before: float | None
    median_ms_after: float | None
    time_change: float | None
    time_change_ci: Interval | None
    time_direction: str
    speedup_before: float | None
    speedup_after: float | None
    speedup_ci_before: Interval | None
    speedup_ci_after: Interval | None
    speedup_change: float | None
    speedup_change_ci: Interval | None
    speedup_direction: str
    compile_cold_before: float | None
    compile_cold_after: float | None
    compile_warm_before: float | None
    compile_warm_after: float | None
    peak_mb_before: float | None
    peak_mb_after: float | None
    memory_change: float | None
    memory_direction: str
    partial_before: str | None
    partial_after: str | None

    @classmethod
    def of(cls, row: dict[str, Any]) -> ComparedRow:
        values = {f.name: row[f.name] for f in fields(cls)}  # KeyError: the report's rows moved
        for key in ("time_change_ci", "speedup_ci_before", "speedup_ci_after", "speedup_change_ci"):
            values[key] = Interval.of(values[key])
        return cls(**values)


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


def _side(value: SessionLike) -> tuple[dict[str, Any], str]:
    """A session's dict and its label (its folder's name, as the command labels it)."""
    if isinstance(value, Session):
        label = value.path.name if value.path else "(not saved)"
        return value.to_dict(), label
    if not isinstance(value, (str, os.PathLike)):
        raise TypeError(f"compare() takes Sessions or session paths, not {type(value).__name__}")
    path = Path(local_session(os.fspath(value)))  # a store name: its cached folder
    label = path.parent.name if path.name in ("session.json", "events.jsonl") else path.name
    return read_session(path), label


def compare(a: SessionLike, b: SessionLike) -> Comparison:
    """Two sessions (Session objects, folders or session.json files) in either order: the
    newer is "after". ValueError when a path is not a session or nothing is compared."""
    (da, la), (db, lb) = _side(a), _side(b)
    result = report_compare.diff_sessions(da, db)
    if result.compared_nothing:
        raise ValueError(report_compare.NOTHING_COMPARED)
    labels = {id(da): la, id(db): lb}
    before, after = labels[id(result.before)], labels[id(result.after)]
    return Comparison(
        before=before,
        after=after,
        rows=tuple(ComparedRow.of(r) for r in result.rows),
        warnings=tuple(result.warnings),
        regressions=tuple(result.regressions),
        text=report_compare.render(result, before, after),
    )
