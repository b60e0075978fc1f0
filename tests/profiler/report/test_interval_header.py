"""The summary table's speedup column states the level its intervals were computed at, the same
in the terminal, report.md, report.html and the trackers: 98.3% for each of three simultaneous
intervals, 96.7% for a run that stopped when settled (Pocock's over looks at 4 and 6 rounds),
95% for a session saved before either."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from tcprof.profiler.cli.summary import render_summary
from tcprof.profiler.model.session import SessionModel
from tcprof.profiler.report.html import render_html
from tcprof.profiler.report.markdown import render_markdown
from tcprof.profiler.report.sections.columns import COLUMN_HELP, SPEEDUP, column_key, speedup_header
from tcprof.profiler.report.sections.table import table_rows
from tcprof.profiler.trackers.content import session_log
from tests.support.edge_family import edge_session
from tests.support.simulated_family import family_session

pytestmark = pytest.mark.timeout(60)


def stopped_session():
    """Two arms, six rounds, run with no --replicates: its intervals at the stopping rule's
    level."""
    shift = np.array([1.0, 1.1, 0.95, 1.02, 0.98, 1.05])
    eager = 10.0 * shift
    inductor = eager / 1.2 * np.array([1.0, 1.02, 0.99, 1.01, 0.98, 1.0])
    return family_session(np.stack([eager, inductor])[:, :, None], stop_early=True)


def old_session():
    """The edge session as saved before simultaneous intervals: each a 95% interval."""
    session = edge_session()
    for arm in session["arms"]:
        for row in arm["results"]:
            row.pop("speedup_ci_simultaneous", None)
            row.pop("interval_level", None)
    return session


SESSIONS = {"simultaneous": (edge_session, "98.3%"), "stopped": (stopped_session, "96.7%")}
SESSIONS["old"] = (old_session, "95%")


def _text(view: str, session, folder: Path) -> str:
    if view == "tracker":
        return session_log(SessionModel.from_json(session), folder).arms[1].table
    return {
        "terminal": lambda: render_summary(SessionModel.read({**session, "environment": {}})),
        "markdown": lambda: render_markdown(SessionModel.read(session)),
        "html": lambda: render_html(SessionModel.read(session)),
    }[view]()


@pytest.mark.parametrize("kind", list(SESSIONS))
@pytest.mark.parametrize("view", ["terminal", "markdown", "html", "tracker"])
def test_every_view_states_the_intervals_level(kind, view, tmp_path):
    make, level = SESSIONS[kind]
    session = make()
    text = _text(view, session, tmp_path).replace("\\[", "[").replace("\\]", "]")  # md escapes
    assert f"speedup [{level} CI]" in text
    if level != "95%":
        assert "speedup [95% CI]" not in text


def test_the_level_is_the_one_the_intervals_were_computed_at():
    session = stopped_session()
    row = session["arms"][1]["results"][0]
    assert row["interval_level"] == pytest.approx(0.9673, abs=1e-4)
    header, _ = table_rows(SessionModel.read(session))
    assert "speedup [96.7% CI]" in header
    assert speedup_header(SessionModel.from_json(session)) == "speedup [96.7% CI]"


def test_the_column_keeps_its_help_whatever_its_level():
    for kind, (make, _) in SESSIONS.items():
        header, _ = table_rows(SessionModel.read(make()))
        keys = [column_key(h) for h in header]
        assert SPEEDUP in keys, kind
        assert set(keys) <= set(COLUMN_HELP), set(keys) - set(COLUMN_HELP)
    assert column_key("speedup [99.2% CI]") == SPEEDUP and column_key("memory") == "memory"


def test_the_html_notes_name_the_column_as_shown(tmp_path):
    html = render_html(SessionModel.read(edge_session()))
    assert "speedup [98.3% CI]: the baseline" in html
