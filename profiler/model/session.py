"""`SessionModel`: a saved session as typed, read-only records, built from session.json's dict by
one reader (`from_json`), tolerant of old sessions (a missing key reads as None or empty). Every
reader of a session (the reports, the trackers, the terminal summary, the window, the Python
API) is meant to read this instead of the dict; `tcprof.Session` is this model with where it
was saved and a notebook's HTML (api/session.py).

`verdict(arm, batch_size)` is the word the verdict sentence uses for that arm at that batch size
(faster, slower, no difference, no interval, fell back, failed, not measured; the baseline's
rows are "baseline"), so a CI gate reads the same verdict a person reads.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, TypeVar

from tcprof.profiler.model.arm import Arm
from tcprof.profiler.model.context import Environment, Provenance, Series
from tcprof.profiler.model.figures import Problem
from tcprof.profiler.model.json_values import as_float, as_int, as_str, freeze, items, thaw
from tcprof.profiler.model.ladder import Ladder
from tcprof.profiler.model.notes import session_notes
from tcprof.profiler.model.options import RunOptions
from tcprof.profiler.model.regional import Tradeoff
from tcprof.profiler.model.row import Row, Speedup
from tcprof.profiler.model.seeding import Seeding
from tcprof.profiler.model.series import series_of
from tcprof.profiler.model.stopping import Stopping
from tcprof.profiler.model.timeline import Timeline
from tcprof.profiler.model.verdict import session_verdicts

Model = TypeVar("Model", bound="SessionModel")


@dataclass(frozen=True, repr=False)
class SessionModel:
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
    schema_version: int | None = None  # None: a session before schema versions
    runtime: Environment | None = None  # `environment`, typed: the first worker's
    errors: tuple[Problem, ...] = ()  # the run's errors, in the order they came
    ladder: Ladder | None = None  # a --ladder session's stages (model/ladder.py)
    options: RunOptions = field(default_factory=lambda: RunOptions.of(None))  # config, typed

    regional: tuple[Tradeoff, ...] = ()  # regional arms against their whole-model twins

    seeding: Seeding | None = None  # how its rounds were seeded (model/seeding.py)

    stopping: Stopping | None = None  # why a run that stops when settled stopped

    timeline: Timeline | None = None  # where the run's time went (model/timeline.py)

    @classmethod
    def from_json(
        cls: type[Model], doc: Mapping[str, Any], path: str | os.PathLike[str] | None = None
    ) -> Model:
        """A session from its session.json dict (`path`: the folder it was read from)."""
        plain = thaw(doc)
        if "series" not in plain:  # a session before schema 4
            plain["series"] = series_of(plain)
        raw_arms = [a for a in plain.get("arms") or [] if isinstance(a, dict)]
        baseline = plain.get("baseline") or (raw_arms[0].get("name") if raw_arms else None)
        baseline = str(baseline) if baseline is not None else None
        arms = [Arm.of(a, a.get("name") == baseline, None) for a in raw_arms]
        options = RunOptions.of(plain.get("config"))
        script = options.script
        status = str(plain.get("status") or "unknown")
        sentences = session_verdicts(arms, baseline, status, script)
        by_arm = {v.arm: v.text for v in sentences}
        schedule = plain.get("schedule") or {}
        notes = session_notes(
            arms, baseline, script, plain.get("comparisons"), as_str(schedule.get("note"))
        )
        return cls(
            path=Path(path) if path is not None else None,
            status=status,
            baseline=baseline,
            arms=tuple(replace(a, verdict=by_arm.get(a.name)) for a in arms),
            verdicts=tuple(v.text for v in sentences),
            notes=tuple(notes),
            started_at=as_float(plain.get("started_at")),
            ended_at=as_float(plain.get("ended_at")),
            provenance=Provenance.of(plain),
            series=Series.of(plain),
            config=freeze(plain.get("config") or {}),
            environment=freeze(plain.get("environment") or {}),
            data=freeze(plain),
            schema_version=as_int(plain.get("schema_version")),
            runtime=Environment.of(plain.get("environment")),
            errors=tuple(p for p in map(Problem.of, items(plain.get("errors"))) if p),
            ladder=Ladder.of(plain.get("ladder")),
            options=options,
            regional=tuple(Tradeoff.of(r) for r in items(plain.get("regional"))),
            seeding=Seeding.of(plain),
            stopping=Stopping.of(plain.get("stopping")),
            timeline=Timeline.of(plain.get("timeline")),
        )

    @classmethod
    def read(cls, value: SessionModel | Mapping[str, Any]) -> SessionModel:
        """The model of `value`: itself when it is one, else built from a session.json dict
        (the door where raw JSON enters a reader, so its callers may hand either)."""
        return value if isinstance(value, SessionModel) else cls.from_json(value)

    @property
    def rows(self) -> tuple[Row, ...]:
        """Every arm's rows, arm by arm."""
        return tuple(row for arm in self.arms for row in arm.rows)

    @property
    def batch_sizes(self) -> tuple[int, ...]:
        """The batch sizes its run planned, in the order given (`options.batch_sizes`)."""
        return self.options.batch_sizes

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
        lines = [f"{type(self).__name__}(status={self.status!r}, arms=[{arms}]{where})"]
        return "\n".join(lines + [f"  {v}" for v in self.verdicts])
