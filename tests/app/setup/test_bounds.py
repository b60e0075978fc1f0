"""The window's number fields hold no value that a run option's declared bound refuses (their
lowest value is the bound's), and a setup that brings one for a setting with no field is refused
with the line `tcprof run` and tcprof.run give, in the window's words (the CLI and the API:
tests/profiler/recording/test_declared.py)."""

from __future__ import annotations

import pytest
from PySide6.QtWidgets import QSpinBox

from tcprof.app.common.field_names import in_app_terms
from tcprof.app.setup.setup_panel import SetupPanel
from tcprof.profiler.config.examples import example_path
from tcprof.profiler.config.limits import LIMITS

FIELDS = {  # RunConfig field -> the panel's field for it
    "warmup": lambda p: p.core.warmup,
    "steps": lambda p: p.core.steps,
    "lr": lambda p: p.core.lr,
    "profile_steps": lambda p: p.core.profile_steps,
    "replicates": lambda p: p.measurement.replicates,
    "budget_s": lambda p: p.measurement.budget,
    "threads": lambda p: p.measurement.threads,
    "stall_timeout_s": lambda p: p.measurement.stall_timeout,
    "nproc": lambda p: p.distributed.nproc,
    "nnodes": lambda p: p.distributed.nnodes,
    "rdzv_timeout_s": lambda p: p.distributed.timeout,
}


@pytest.fixture(scope="module")
def panel(qapp):
    panel = SetupPanel(None)
    panel.model.set_path(str(example_path("cnn")))
    assert panel.is_valid()
    yield panel
    panel.deleteLater()


@pytest.mark.parametrize("limit", LIMITS, ids=lambda limit: limit.field)
def test_each_bound_is_the_fields_lowest_value_or_refused_with_the_engines_line(panel, limit):
    if limit.field in FIELDS:
        spin = FIELDS[limit.field](panel)
        step = 1 if isinstance(spin, QSpinBox) else 10.0 ** -spin.decimals()
        auto = limit.field in ("threads", "replicates", "budget_s")  # their 0: auto or none
        low = spin.minimum() + (step if auto else 0)
        assert limit.problem(low) is None
        assert limit.problem(low - step) == limit.message
        return
    state = panel.state()
    bad = limit.low if limit.strict else limit.low - 1
    try:
        panel.restore({**state, limit.field: bad})
        assert panel.error() == in_app_terms(limit.message)
    finally:
        panel.restore(state)
    assert panel.error() is None
