"""docs/notebook.ipynb executed by a real IPython kernel (nbclient): a class defined in a cell
is profiled, its progress shown live in the cell, its Session rendered as HTML, and the
%tcprof magic runs it again."""

from __future__ import annotations

import html
import json
import sys

import pytest

from tests.support.paths import ROOT

nbclient = pytest.importorskip("nbclient")
nbformat = pytest.importorskip("nbformat")

pytestmark = [pytest.mark.slow, pytest.mark.timeout(600)]

NOTEBOOK = ROOT / "docs" / "notebook.ipynb"


@pytest.fixture(scope="module")
def executed(tmp_path_factory, monkeypatch_module):
    """The notebook run top to bottom in a kernel of this interpreter (a kernelspec named
    python3 in a private JUPYTER_PATH, so no other Python's kernel is picked)."""
    root = tmp_path_factory.mktemp("jupyter")
    spec = root / "kernels" / "python3"
    spec.mkdir(parents=True)
    argv = [sys.executable, "-m", "ipykernel_launcher", "-f", "{connection_file}"]
    kernel = {"argv": argv, "display_name": "tcprof's Python", "language": "python"}
    (spec / "kernel.json").write_text(json.dumps(kernel))
    monkeypatch_module.setenv("JUPYTER_PATH", str(root))
    monkeypatch_module.setenv("JUPYTER_RUNTIME_DIR", str(root / "runtime"))
    monkeypatch_module.setenv("TCPROF_HOME", str(root / "home"))
    nb = nbformat.read(NOTEBOOK, as_version=4)
    client = nbclient.NotebookClient(
        nb, kernel_name="python3", timeout=300, resources={"metadata": {"path": str(root)}}
    )
    client.execute()
    return nb


@pytest.fixture(scope="module")
def monkeypatch_module():
    with pytest.MonkeyPatch.context() as mp:
        yield mp


def _cell(nb, starting: str):
    return next(c for c in nb.cells if c.cell_type == "code" and c.source.startswith(starting))


def _text(cell) -> str:
    return "".join(o.get("text", "") for o in cell.outputs if o.output_type == "stream")


def test_a_class_defined_in_a_cell_is_profiled_and_its_verdict_rendered(executed):
    cell = _cell(executed, "session = tcprof.run(TinyNet")
    (result,) = [o for o in cell.outputs if o.output_type == "execute_result"]
    page = result["data"]["text/html"]
    assert page.startswith("<iframe srcdoc=")
    inner = html.unescape(page)
    assert "aot_eager " in inner and 'id="chart-step-time"' in inner
    assert "TinyNet() from model.cloudpickle" in inner
    assert "Session(status='completed', arms=[eager, aot_eager]" in result["data"]["text/plain"]
    words = _text(_cell(executed, 'print(session.verdict("aot_eager", 16))')).splitlines()
    assert words[0] == "no interval", "the notebook runs one round: no interval, no verdict"
    assert words[1].startswith("not settled (one round) "), "str(Speedup): no figure to quote"


def test_the_run_shows_its_progress_live_in_the_cell(executed):
    cell = _cell(executed, "session = tcprof.run(TinyNet")
    (shown,) = [o for o in cell.outputs if o.output_type == "display_data"]
    final = shown["data"]["text/html"]  # one display, updated in place (nbclient applies them)
    assert '<progress value="1.000"' in final and "run completed" in final
    assert "<li>[aot_eager] bs 16: first step" in final, "the notable events, as the CLI says them"
    assert not [o for o in cell.outputs if o.get("name") == "stderr"], "no terminal line too"


def test_the_magic_takes_the_clis_arguments_and_returns_the_session(executed):
    cell = _cell(executed, "again = %tcprof TinyNet")
    assert _text(cell).startswith("aot_eager ")
    compared = _cell(executed, "comparison = tcprof.compare(session, again)")
    worse = _text(compared).strip()
    (result,) = [o for o in compared.outputs if o.output_type == "execute_result"]
    text = result["data"]["text/plain"]
    assert text.startswith("before: ") and result["data"]["text/html"].startswith("<pre>before: ")
    outcome = text.splitlines()[-1]
    assert (
        outcome == "nothing got worse beyond noise"
        if worse == "False"
        else (outcome.startswith("worse beyond noise: "))
    )
