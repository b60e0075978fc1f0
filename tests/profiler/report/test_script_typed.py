"""The script part reads the run's script as the model types it (`SessionModel.options.script`,
a ScriptSource): one reading for the reports, the terminal and the window."""

from __future__ import annotations

import pytest

from tcprof.profiler.config.script import ScriptSource
from tcprof.profiler.model.session import SessionModel
from tcprof.profiler.report.sections import script
from tests.support.script_sessions import script_session
from tests.support.synthetic import synthetic_session

pytestmark = pytest.mark.timeout(60)


def test_a_script_session_s_script_is_the_model_s_typed_one():
    model = SessionModel.from_json(script_session())
    source = script.script_of(model)
    assert isinstance(source, ScriptSource) and source is model.options.script
    assert script.command_text(source).startswith("python ")
    assert script.script_of(SessionModel.from_json(synthetic_session())) is None


def test_a_script_without_path_or_module_has_no_command_and_a_sweep_names_its_phase():
    with pytest.raises(KeyError):
        script.command_text(ScriptSource(path=""))
    swept = ScriptSource(path="train.py", args=("--bs", "{bs}"), sweep="bs")
    assert script.command_text(swept, 8) == "python train.py --bs 8"
    assert (
        script.phase_text(swept, 8) == "bs=8"
        and script.phase_text(ScriptSource(path="t.py"), 8) == "the script"
    )
