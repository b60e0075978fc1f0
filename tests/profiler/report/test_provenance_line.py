"""Provenance heads the terminal summary and both reports, in one line."""

from __future__ import annotations

import copy

from tcprof.profiler.cli.summary import render_summary
from tcprof.profiler.model.session import SessionModel
from tcprof.profiler.report.html import render_html
from tcprof.profiler.report.markdown import render_markdown
from tcprof.profiler.report.sections.provenance import provenance_line
from tests.support.synthetic import synthetic_session

GIT = {"commit": "3f2a1c9" + "0" * 33, "short": "3f2a1c9", "branch": "main", "dirty": True}


def _session() -> dict:
    session = synthetic_session()
    session["environment"].update(torch="2.13.0", triton="3.5.0", python="3.11.7")
    session["environment"].update(device="cpu", device_name="AMD EPYC 7B13")
    session["provenance"] = {"tcprof": "0.1.0", "git": dict(GIT)}
    return session


def test_the_line_names_commit_branch_dirt_versions_and_device():
    assert provenance_line(SessionModel.read(_session())) == (
        "commit 3f2a1c9 on main (dirty) · torch 2.13.0 · triton 3.5.0 · Python 3.11.7 · "
        "cpu (AMD EPYC 7B13) · tcprof 0.1.0"
    )
    detached = _session()
    detached["provenance"]["git"].update(branch=None, dirty=False)
    assert provenance_line(SessionModel.read(detached)).startswith(
        "commit 3f2a1c9 (detached) · torch"
    )


def test_outside_a_repository_or_before_schema_4_the_line_starts_at_torch():
    old = copy.deepcopy(_session())
    del old["provenance"]
    assert provenance_line(SessionModel.read(old)).startswith("torch 2.13.0 · ")


def test_the_summary_and_both_reports_show_it():
    session, line = _session(), provenance_line(SessionModel.read(_session()))
    assert render_summary(SessionModel.read(session)).splitlines()[0] == line
    assert line in render_markdown(SessionModel.read(session))
    assert "commit 3f2a1c9 on main (dirty) · torch 2.13.0" in render_html(
        SessionModel.read(session)
    )
