"""reproduce.py: a standalone plain-PyTorch script that runs and prints the loss tcprof saw."""

from __future__ import annotations

import ast
import re
import subprocess
import sys
from pathlib import Path

import pytest

from tcprof.profiler.config import ArmSpec, examples
from tcprof.profiler.model.session import SessionModel
from tcprof.profiler.report.reproduce import render_reproducer
from tests.support.synthetic import synthetic_session

LOSS = re.compile(r"step 0 loss (-?\d+\.\d+)")


def imported_modules(code: str) -> set[str]:
    names = set()
    for node in ast.walk(ast.parse(code)):
        if isinstance(node, ast.Import):
            names |= {a.name.split(".")[0] for a in node.names}
        elif isinstance(node, ast.ImportFrom):
            names.add((node.module or "").split(".")[0])
    return names


def run_script(code: str, tmp_path: Path, *args: str) -> str:
    script = tmp_path / "reproduce.py"
    script.write_text(code)
    proc = subprocess.run(
        [sys.executable, str(script), *args],
        capture_output=True,
        text=True,
        timeout=240,
        cwd=tmp_path,  # not the repository: the script must not need tcprof
        env={"PATH": "/usr/bin:/bin", "HOME": str(tmp_path)},
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert "final loss" in proc.stdout
    return proc.stdout


def test_simple_reproducer_runs_and_matches_the_measured_loss(real_run, tmp_path):
    data, _ = real_run
    code = render_reproducer(SessionModel.read(data))  # the first compiled arm
    # pickle: only for a model tcprof.run shipped from Python (load_shipped_model)
    assert imported_modules(code) <= {"argparse", "importlib", "inspect", "logging", "sys", "time",
                                      "pathlib", "torch", "safetensors", "pickle"}  # fmt: skip
    assert (
        "runner = torch.compile(model, backend='aot_eager', mode=None, dynamic=None, fullgraph=False)"
        in code
    )
    out = run_script(code, tmp_path, "--steps", "3")
    measured = next(r for r in data["arms"][1]["results"] if r["batch_size"] == 8)["first_loss"]
    assert abs(float(LOSS.search(out).group(1)) - measured) < 1e-5
    eager = render_reproducer(SessionModel.read(data), "eager")
    assert "runner = model" in eager and "\nrunner = torch.compile" not in eager


def _no_loaded_model(data: dict) -> dict:
    for arm in data["arms"]:
        arm["model"] = None
        for r in arm["results"]:
            r["first_loss"] = None
    return data


def test_tiny_gpt_reproducer_with_debug_settings_runs(tmp_path):
    path = str(examples.example_path("tiny_gpt"))
    data = _no_loaded_model(
        synthetic_session(
            path=path,
            arms=(ArmSpec("eager"), ArmSpec("aot_eager", dynamic=False, fullgraph=False)),
            debug={"logs": ["recompiles"], "verbose": True, "fail_on_recompile": True},
        )
    )
    code = render_reproducer(SessionModel.read(data), "aot_eager(dynamic=False)")
    assert "torch._logging.set_logs(recompiles=True)" in code
    assert "torch._dynamo.config.verbose = True" in code
    assert "FAIL_ON_RECOMPILE = True" in code
    assert "dynamic=False" in code
    out = run_script(code, tmp_path, "--steps", "3", "--batch-size", "2")
    assert LOSS.search(out)


HOOK_MODEL = """
import torch
import torch.nn as nn


class TokenNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.emb = nn.Embedding(100, 8)
        self.head = nn.Linear(8, 100)

    def forward(self, idx, labels=None):
        return self.head(self.emb(idx))


def make_batch(batch_size, device):
    x = torch.randint(0, 100, (batch_size, 12), device=device)
    return {"idx": x}, torch.randint(0, 100, (batch_size, 12), device=device)
"""


@pytest.mark.parametrize("how", ["hook", "int_shape"])
def test_token_model_with_hook_or_int_shape(tmp_path, how):
    model = tmp_path / "tokens.py"
    model.write_text(HOOK_MODEL)
    if how == "hook":
        source = {"path": str(model)}
        info = {"model": "TokenNet()", "params": 1, "input": "make_batch(batch_size, device)",
                "input_source": "hook"}  # fmt: skip
    else:
        source = {"path": str(model), "model": "TokenNet", "input_shape": "int:12:100"}
        info = None
    data = synthetic_session(source=source, model_info=info, arms=(ArmSpec("eager"),))
    code = render_reproducer(SessionModel.read(data))
    if how == "hook":
        assert "INPUT = {'kind': 'hook'}" in code
    else:
        assert "'integer': True, 'vocab': 100" in code
    assert LOSS.search(run_script(code, tmp_path, "--steps", "2"))


def test_session_strings_cannot_inject_code():
    label = "x\nimport os; os.system('echo pwned') # "
    data = synthetic_session(
        source={"path": "/m/a'b\"\nc.py", "factory": "Net(\n)"},
        arms=(ArmSpec("eager"), ArmSpec("aot_eager", label=label)),
    )
    code = render_reproducer(SessionModel.read(data), label)
    tree = ast.parse(code)
    calls = [n for n in ast.walk(tree) if isinstance(n, ast.Attribute) and n.attr == "system"]
    assert calls == []
    ns: dict = {}
    exec(next(x for x in code.splitlines() if x.startswith("MODEL_FILE = ")), ns)
    assert ns["MODEL_FILE"] == "/m/a'b\"\nc.py"


def test_unknown_arm_is_a_clear_error():
    with pytest.raises(ValueError, match="no arm named 'nope'"):
        render_reproducer(SessionModel.read(synthetic_session()), "nope")
