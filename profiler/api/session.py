"""`Session`: a tcprof session as a typed, read-only value, built from session.json (the dict
tcprof.profiler.session writes), and `load` to open a saved one.

`session.verdict("inductor", 32)` is the word the verdict sentence uses for that arm at that
batch size (faster, slower, no difference, no interval, fell back, failed, not measured; the baseline's rows
are "baseline"), so a CI gate reads the same verdict a person reads.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tcprof.profiler.analysis.series import series_of
from tcprof.profiler.analysis.verdict import session_notes, session_verdicts
from tcprof.profiler.api.frozen import freeze, thaw
from tcprof.profiler.api.records import Arm, Provenance, Row, Series, Speedup
from tcprof.profiler.folders.files import read_session, session_source
from tcprof.profiler.team_store.lookup import local_session


@dataclass(frozen=True, repr=False)
class Session:
    """A session: its arms (the first is the baseline) with their rows, the verdict sentences
    and the notes beside them, and where it is saved (`path`, None when it was not); its
    `provenance` (commit, branch, dirty, versions, device) and `series` (which sessions measure
    the same thing; None when its config names no file). `config`, `environment` and `data`
    (the whole session.json) are read-only mappings."""

    path: Path | None
    status: str
    baseline: str | None
    arms: tuple[Arm, ...]
    verdicts: tuple[str, ...]
    notes: tuple[str, ...]
    started_at: float | None
    ended_at: float | None
    provenance: Provenance
    series: Series | None
    config: Mapping[str, Any] = field(compare=False, hash=False)
    environment: Mapping[str, Any] = field(compare=False, hash=False)
    data: Mapping[str, Any] = field(compare=False, hash=False)

    @classmethod
    def from_dict(
        cls, doc: Mapping[str, Any], path: str | os.PathLike[str] | None = None
    ) -> Session:
        """A session from its session.json dict (`path`: the folder it was read from)."""
        plain = thaw(doc)
        if "series" not in plain:  # a session before schema 4
            plain["series"] = series_of(plain)
        arms = [a for a in plain.get("arms") or [] if isinstance(a, dict)]
        baseline = plain.get("baseline") or (arms[0].get("name") if arms else None)
        sentences = session_verdicts(plain)
        by_arm = {v.arm: v.text for v in sentences}
        started, ended = plain.get("started_at"), plain.get("ended_at")
        return cls(
            path=Path(path) if path is not None else None,
            status=str(plain.get("status") or "unknown"),
            baseline=str(baseline) if baseline is not None else None,
            arms=tuple(
                Arm.of(a, a.get("name") == baseline, by_arm.get(str(a.get("name")))) for a in arms
            ),
            verdicts=tuple(v.text for v in sentences),
            notes=tuple(session_notes(plain)),
            started_at=float(started) if isinstance(started, (int, float)) else None,
            ended_at=float(ended) if isinstance(ended, (int, float)) else None,
            provenance=Provenance.of(plain),
            series=Series.of(plain),
            config=freeze(plain.get("config") or {}),
            environment=freeze(plain.get("environment") or {}),
            data=freeze(plain),
        )

    @property
    def rows(self) -> tuple[Row, ...]:
        """Every arm's rows, arm by arm."""
        return tuple(row for arm in self.arms for row in arm.rows)

    @property
    def batch_sizes(self) -> tuple[int, ...]:
        return tuple(int(b) for b in self.config.get("batch_sizes") or ())

    def arm(self, name: str) -> Arm:
        """The arm named `name` (KeyError naming the arms there are)."""
        for arm in self.arms:
            if arm.name == name:
                return arm
        names = ", ".join(a.name for a in self.arms) or "none"
        raise KeyError(f"no arm named {name!r} in the session (arms: {names})")

    def row(self, arm: str, batch_size: int) -> Row:
        return self.arm(arm).row(batch_size)

    def verdict(self, arm: str, batch_size: int) -> str:
        """'faster', 'slower', 'no difference', 'no interval' (one round), 'fell back', 'failed'
        or 'not measured' for a compiled arm against the baseline at `batch_size` ('baseline'
        for the baseline)."""
        return self.row(arm, batch_size).verdict

    def speedup(self, arm: str, batch_size: int) -> Speedup | None:
        return self.row(arm, batch_size).speedup

    def to_dict(self) -> dict[str, Any]:
        """session.json as a plain dict (a copy)."""
        result: dict[str, Any] = thaw(self.data)
        return result

    def __repr__(self) -> str:
        arms = ", ".join(a.name for a in self.arms)
        where = f", path={str(self.path)!r}" if self.path else ""
        lines = [f"Session(status={self.status!r}, arms=[{arms}]{where})"]
        return "\n".join(lines + [f"  {v}" for v in self.verdicts])

    def _repr_html_(self) -> str:
        """The verdict, the summary table and the charts, as report.html draws them."""
        from tcprof.profiler.api.notebook import session_html

        return session_html(self.to_dict())


def load(path: str | os.PathLike[str], store: str | None = None) -> Session:
    """A saved session: its folder, its session.json, or an events.jsonl (an interrupted
    run's), or a session in the team's store (`store:NAME` or `mlflow:RUN_ID`, read from `store`,
    else TCPROF_STORE, and cached). ValueError (one line) when it is not a session."""
    path = local_session(path if isinstance(path, str) else os.fspath(path), store)
    doc = read_session(Path(path))
    return Session.from_dict(doc, session_source(Path(path)).parent.absolute())
