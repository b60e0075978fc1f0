"""`Session`: a tcprof session as a typed, read-only value (the session model, profiler/model/,
with a notebook's HTML), and `load` to open a saved one."""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from tcprof.profiler.folders.files import read_session, session_source
from tcprof.profiler.model.session import SessionModel
from tcprof.profiler.team_store.lookup import local_session


class Session(SessionModel):
    """A session: the session model (its arms and rows, verdicts, notes, provenance, series,
    config and the whole session.json, read-only), as `tcprof.load` and `tcprof.run` return it."""

    @classmethod
    def from_dict(
        cls, doc: Mapping[str, Any], path: str | os.PathLike[str] | None = None
    ) -> Session:
        """A session from its session.json dict (`path`: the folder it was read from)."""
        return cls.from_json(doc, path)

    def _repr_html_(self) -> str:
        """The verdict, the summary table and the charts, as report.html draws them."""
        from tcprof.profiler.api.notebook import session_html

        return session_html(self)


def load(path: str | os.PathLike[str], store: str | None = None) -> Session:
    """A saved session: its folder, its session.json, or an events.jsonl (an interrupted
    run's), or a session in the team's store (`store:NAME` or `mlflow:RUN_ID`, read from `store`,
    else TCPROF_STORE, and cached). ValueError (one line) when it is not a session."""
    path = local_session(path if isinstance(path, str) else os.fspath(path), store)
    doc = read_session(Path(path))
    return Session.from_dict(doc, session_source(Path(path)).parent.absolute())
