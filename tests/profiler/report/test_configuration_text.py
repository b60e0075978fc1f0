"""report.html's Configuration reads the typed run options (model/options.py) and says what the
session's `config` said, word for word: a number as saved (600, not 600.0), no debug settings as
not said ("-", not False), sequential blocks, the loaded model's parameters."""

from __future__ import annotations

import re

import pytest

from tcprof.profiler.model.options import RunOptions
from tcprof.profiler.model.session import SessionModel
from tcprof.profiler.report.html import esc
from tcprof.profiler.report.sections.configuration import configuration
from tests.support.synthetic import synthetic_session

pytestmark = pytest.mark.timeout(60)


def _cells(session: dict) -> dict[str, str]:
    html = configuration(SessionModel.from_json(session), esc)
    return dict(re.findall(r"<tr><th>([^<]*)</th><td class=\"wrap\">([^<]*)</td></tr>", html))


def test_the_synthetic_session_reads_as_saved():
    cells = _cells(synthetic_session())
    assert cells["blocks"] == "5 (interleaved)" and cells["batch sizes"] == "8"
    assert cells["optimizer"] == "sgd lr=0.01" and cells["timeout s"] == "-"
    assert cells["parameters"] == "11" and cells["model"] == "Net()"
    assert cells["dynamo verbose"] == "False" and cells["debug logs"] == "-"


def test_options_said_by_hand_read_as_they_were_saved():
    session = synthetic_session(debug={"logs": ["graph_breaks"], "verbose": True})
    session["config"].update(timeout_s=600, sequential=True, batch_sizes=[8, 16])
    cells = _cells(session)
    assert cells["timeout s"] == "600" and cells["blocks"] == "5 (sequential)"
    assert cells["debug logs"] == "graph_breaks" and cells["dynamo verbose"] == "True"
    assert cells["batch sizes"] == "8, 16"


def test_a_session_without_config_says_nothing_of_its_debug_settings():
    session = synthetic_session()
    del session["config"]
    cells = _cells(session)
    for key in ("dynamo verbose", "suppress_errors", "fail_on_recompile", "timeout s"):
        assert cells[key] == "-", key
    assert cells["blocks"] == "None (interleaved)" and cells["optimizer"] == "None lr=None"


def test_run_options_read_sequential_timeout_and_whether_debug_was_given():
    options = RunOptions.of({"sequential": True, "timeout_s": 600, "debug": {"verbose": True}})
    assert options.sequential and options.timeout_s == 600 and options.debug.given
    assert isinstance(options.timeout_s, int)
    bare = RunOptions.of({})
    assert not bare.sequential and bare.timeout_s is None and not bare.debug.given
