"""Loop kinds (--loop, --amp, --channels-last, --compile-optimizer): what the CLI accepts, what
the worker actually runs (its `loaded` facts), the accuracy check of each kind, and the
standalone reproducer of an inference arm and of a mixed-precision arm."""

from __future__ import annotations

import copy

import pytest
import torch
import torch.nn as nn
import torch.nn.functional as F

from tcprof.profiler.cli.main import build_parser
from tcprof.profiler.config import ArmSpec, ConfigError, ModelSource, RunConfig, loop_text
from tcprof.profiler.model.session import SessionModel
from tcprof.profiler.recording.options import config_from_options
from tcprof.profiler.report.markdown import render_markdown
from tcprof.profiler.report.reproduce import render_reproducer
from tcprof.profiler.worker.accuracy import check_step
from tcprof.profiler.worker.errors import StepFailed
from tcprof.profiler.worker.step_loop import check_autocast
from tests.profiler.report.test_reproduce import LOSS, run_script
from tests.support.cli import arm, events, run_cli

CHEAP = [
    "--arms",
    "eager,aot_eager",
    "--batch-sizes",
    "2",
    "--warmup",
    "1",
    "--steps",
    "2",
    "--blocks",
    "1",
    "--replicates",
    "1",
    "--min-block-ms",
    "0",
    "--quiet",
]


# -- configuration ------------------------------------------------------------------------------
def test_the_cli_flags_reach_the_config():
    args = build_parser().parse_args(
        [
            "run",
            "--example",
            "cnn",
            "--loop",
            "train",
            "--amp",
            "fp16",
            "--channels-last",
            "--compile-optimizer",
        ]  # fmt: skip
    )
    cfg = config_from_options(vars(args))
    assert (cfg.loop, cfg.amp, cfg.channels_last, cfg.compile_optimizer) == (
        "train",
        "fp16",
        True,
        True,
    )
    again = RunConfig.from_dict(cfg.to_dict())
    assert again == cfg
    default = config_from_options(vars(build_parser().parse_args(["run", "--example", "simple"])))
    assert (default.loop, default.amp, default.channels_last, default.compile_optimizer) == (
        "train",
        None,
        False,
        False,
    )


@pytest.mark.parametrize(
    ("changes", "message"),
    [
        ({"loop": "serve"}, "unknown loop 'serve'"),
        ({"amp": "fp8"}, "unknown --amp 'fp8'"),
        ({"loop": "inference", "compile_optimizer": True}, "an inference loop has none"),
        ({"compile_optimizer": True, "arms": (ArmSpec("eager"),)}, "every arm here is eager"),
        (
            {"loop": "inference", "save_weights": "pt", "artifacts_dir": "/tmp/x"},
            "an inference loop trains nothing",
        ),
        ({"channels_last": "yes"}, "true or false"),
    ],
)
def test_nonsense_loop_settings_are_usage_errors(changes, message):
    with pytest.raises(ConfigError, match=message):
        RunConfig(ModelSource("m.py"), **changes)


def test_an_older_session_config_reads_as_fp32_training():
    assert loop_text({"optimizer": "sgd"}) == "train, fp32"
    text = loop_text(
        {"loop": "train", "amp": "fp16", "channels_last": True, "compile_optimizer": True}
    )
    assert text == "train, fp16 autocast, GradScaler, channels_last, compiled optimizer step"


def test_a_device_without_autocast_is_a_usage_error():
    with pytest.raises(StepFailed) as failed:
        check_autocast("meta", "bf16")
    assert failed.value.event["kind"] == "usage" and "--amp bf16" in failed.value.event["message"]
    assert check_autocast("cpu", "bf16") is torch.bfloat16  # bf16 autocast runs on CPU


# -- the accuracy check of each loop kind, in this process ------------------------------------
class TwoLayers(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.fc1, self.fc2 = nn.Linear(6, 8), nn.Linear(8, 2)

    def forward(self, x):
        return self.fc2(torch.relu(self.fc1(x)))


class Batch:
    def __init__(self) -> None:
        gen = torch.Generator().manual_seed(3)
        self.args, self.kwargs, self.targets = (torch.randn(4, 6, generator=gen),), {}, None


def _mse(out, batch):
    return F.mse_loss(out, torch.ones_like(out))


def test_a_wrong_compiled_optimizer_step_fails_on_the_parameter_it_moved():
    torch.manual_seed(0)
    model = TwoLayers()
    made: list[torch.optim.Optimizer] = []

    def sgd(params):
        made.append(torch.optim.SGD(params, lr=0.1))
        return made[-1]

    def nudging(opt_step):  # "compiles" the step into one that also moves fc2.bias
        def step():
            opt_step()
            with torch.no_grad():
                made[-1].param_groups[0]["params"][-1].add_(1e-2)  # fc2.bias

        return step

    ok = check_step(model, Batch(), _mse, lambda m: m, 1, make_optimizer=sgd,
                    compile_optimizer=lambda step: step)  # fmt: skip
    assert ok["status"] == "pass" and ok["compared"] == 20  # two steps of 1 + 1 + 4 + 4
    assert ok["checked"] == ["output", "loss", "gradients", "parameters after the optimizer step"]
    bad = check_step(model, Batch(), _mse, lambda m: m, 1, make_optimizer=sgd,
                     compile_optimizer=nudging)  # fmt: skip
    assert bad["status"] == "fail" and bad["worst"]["name"] == "fc2.bias"
    assert bad["reason"].startswith(
        "step 1: parameters after the optimizer step differ; "
        "worst: fc2.bias after the optimizer step differs"
    )


def test_mixed_precision_takes_the_dtypes_tolerances_unless_given():
    torch.manual_seed(0)
    model = TwoLayers()
    bf16 = check_step(model, Batch(), _mse, lambda m: m, 1, amp=torch.bfloat16)
    assert (bf16["rtol"], bf16["atol"]) == (1.6e-2, 1e-5)
    assert bf16["autocast"] == "torch.bfloat16" and bf16["status"] == "pass"
    given = check_step(model, Batch(), _mse, lambda m: m, 1, rtol=1e-3, atol=1e-6,
                       amp=torch.bfloat16)  # fmt: skip
    assert (given["rtol"], given["atol"]) == (1e-3, 1e-6)

    def in_float32(m):  # a "compiled" run that ignores autocast: far from the bf16 eager run?
        def run(*args, **kwargs):
            with torch.autocast("cpu", enabled=False):
                return m(*args, **kwargs)

        return run

    full = check_step(copy.deepcopy(model), Batch(), _mse, in_float32, 1, amp=torch.bfloat16)
    assert full["status"] == "fail"  # its output is float32, eager's bfloat16
    assert "dtype torch.float32 compiled, torch.bfloat16 eager" in full["reason"]


# -- each loop kind through the CLI -----------------------------------------------------------
def _loaded(out, arm_index: int) -> dict:
    return next(e for e in events(out) if e["type"] == "loaded" and e["arm"] == arm_index)


def _check_reproducer(session: dict, tmp_path) -> str:
    code = render_reproducer(SessionModel.read(session), "aot_eager")
    out = run_script(code, tmp_path, "--steps", "2")
    measured = arm(session, "aot_eager")["results"][0]["first_loss"]
    assert abs(float(LOSS.search(out).group(1)) - measured) < 1e-5
    return code


@pytest.mark.slow
def test_inference_under_bf16_autocast_with_no_4d_input(tmp_path):
    """simple: eval, forward only under inference_mode and bf16 autocast; --channels-last with
    no 4-D input warns and runs."""
    out = tmp_path / "run"
    rc, stdout, stderr, s = run_cli(
        ["--example", "simple", "--loop", "inference", "--amp", "bf16", "--channels-last",
         *CHEAP], out,
    )  # fmt: skip
    assert rc == 0, stderr[-3000:]
    for index in (0, 1):
        loop = _loaded(out, index)["loop"]
        assert loop["kind"] == "inference" and loop["model_mode"] == "eval"
        assert loop["inference_mode"] is True and loop["optimizer"] is None
        assert loop["autocast_dtype"] == "torch.bfloat16" and loop["grad_scaler"] is False
        assert loop["channels_last"] is True and loop["channels_last_params"] == 0
    warnings = [e["text"] for e in events(out) if e["type"] == "log" and "channels" in e["text"]]
    assert len(warnings) == 2 and "no input is a 4-D tensor" in warnings[0]
    eager, compiled = arm(s, "eager")["results"][0], arm(s, "aot_eager")["results"][0]
    assert compiled["first_loss"] == pytest.approx(eager["first_loss"])
    assert "inference forward" in compiled["steady_peak_method"]
    acc = compiled["accuracy"]
    assert acc["status"] == "pass" and acc["checked"] == ["output"]
    assert acc["autocast"] == "torch.bfloat16" and acc["rtol"] == 1.6e-2
    assert "inference (eval, torch.inference_mode), bf16 autocast" in render_markdown(
        SessionModel.read(s)
    )
    code = _check_reproducer(s, tmp_path)
    assert "with torch.inference_mode(), torch.autocast(" in code and "LOOP = 'inference'" in code


@pytest.mark.slow
def test_training_under_bf16_with_a_compiled_optimizer(tmp_path):
    """tiny_gpt: bf16 autocast around forward and loss; the compiled arm compiles its optimizer
    step (its own frame), the eager baseline steps eagerly; accuracy compares the parameters
    after one step."""
    out = tmp_path / "run"
    rc, _, stderr, s = run_cli(
        ["--example", "tiny_gpt", "--amp", "bf16", "--compile-optimizer", *CHEAP], out
    )
    assert rc == 0, stderr[-3000:]
    eager_loop, compiled_loop = _loaded(out, 0)["loop"], _loaded(out, 1)["loop"]
    assert eager_loop["optimizer"] == "eager" and compiled_loop["optimizer"] == "compiled"
    assert compiled_loop["kind"] == "train" and compiled_loop["autocast_dtype"] == "torch.bfloat16"
    frames = {e["frame"] for e in events(out) if e["type"] == "compile" and e["arm"] == 1}
    assert {"forward", "opt_step"} <= frames
    acc = arm(s, "aot_eager")["results"][0]["accuracy"]
    assert acc["status"] == "pass" and acc["rtol"] == 1.6e-2
    assert acc["checked"] == ["output", "loss", "gradients", "parameters after the optimizer step"]
    code = _check_reproducer(s, tmp_path)
    assert "@torch.compile(backend='aot_eager', fullgraph=False)" in code
    assert "        opt_step()" in code


@pytest.mark.slow
def test_channels_last_and_fp16_training_with_a_grad_scaler(tmp_path):
    """cnn (a 4-D input): the model's convolutions and the images in channels_last, fp16
    autocast with a GradScaler whose step the compiled arm compiles."""
    out = tmp_path / "run"
    rc, _, stderr, s = run_cli(
        ["--example", "cnn", "--amp", "fp16", "--channels-last", "--compile-optimizer", *CHEAP],
        out,
    )
    assert rc == 0, stderr[-3000:]
    loop = _loaded(out, 1)["loop"]
    assert loop["channels_last_params"] == 2 and loop["grad_scaler"] is True
    assert loop["autocast_dtype"] == "torch.float16" and loop["optimizer"] == "compiled"
    assert not [e for e in events(out) if e["type"] == "log" and "4-D" in e["text"]]
    frames = {e["frame"] for e in events(out) if e["type"] == "compile" and e["arm"] == 1}
    assert "scaled_opt_step" in frames
    rows = [arm(s, name)["results"][0] for name in ("eager", "aot_eager")]
    assert rows[0]["last_loss"] == pytest.approx(rows[1]["last_loss"], rel=1e-3)
    acc = rows[1]["accuracy"]
    assert acc["status"] == "pass" and (acc["rtol"], acc["autocast"]) == (1e-3, "torch.float16")
    assert "parameters after the optimizer step" in acc["checked"]


def test_the_report_configuration_names_the_loop():
    from tcprof.profiler.report.sections.configuration import configuration

    cfg = RunConfig(ModelSource("m.py"), amp="bf16", channels_last=True)
    html = configuration(SessionModel.read({"config": cfg.to_dict(), "arms": []}), lambda t: str(t))
    assert '<th>loop</th><td class="wrap">train, bf16 autocast, channels_last</td>' in html
