"""Advice that fixes recompiles: guard failures grouped into causes and fixes, and
--apply-advice verifying the fix it can apply by running it."""

from __future__ import annotations

import json

from tcprof.profiler.analysis.advice import (
    arm_advice,
    fallback_advice,
    library_break_advice,
    recompile_advice,
)
from tcprof.profiler.folders.files import iter_events
from tcprof.profiler.model.arm import Arm, Fallback, GraphBreak, Recompile
from tcprof.profiler.session.fold import SessionFold
from tests.support.cli import FAST, MODELS, run_cli
from tests.support.synthetic import eval_first_session

# Reasons as torch 2.13 records them (get_compilation_metrics().recompile_reason).
SIZE_8_16 = "0/0: tensor 'args[0]' size mismatch at index 0. expected 8, actual 16"
SIZE_16_32 = "0/1: tensor 'args[0]' size mismatch at index 0. expected 16, actual 32"
SEQ_LEN = "0/2: tensor 'args[0]' size mismatch at index 1. expected 128, actual 256"
STEP_INT = (
    "1/1: self.step == 1                                           # self.step += 1  # m.py:11 "
    "in forward (HINT: torch.compile considers integer attributes of the nn.Module to be "
    "static. If you are observing recompilation, you might want to make this integer dynamic "
    "using torch._dynamo.config.allow_unspec_int_on_nn_module = True, or convert this integer "
    'into a tensor.)\nUser stack trace:\n  File "m.py", line 11, in forward\n    self.step += 1'
)
FLOAT_ARG = (
    "1/0: t == 0.5                                                 # return x * t  # m.py:12"
)


def _advice(recompiles, *args, **kwargs):
    """The advice of recompiles given as session.json holds them, read as the model does."""
    return recompile_advice([Recompile.of(r) for r in recompiles], *args, **kwargs)


def _arm(arm):
    return Arm.of(arm, False, None)


def _rc(reason, bs=16):
    return {"reason": reason, "batch_size": bs, "frame": "forward", "file": "m.py", "line": 10}


def test_a_training_recompile_for_grad_mode_names_the_evaluation_it_followed():
    """The only grad-mode recompile is training's (the evaluation's own recompile failed on its
    size first): the advice names the evaluation's call before training from the compiles
    list, and the training call."""
    (advice,) = [a for a in eval_first_session()["arms"][1]["advice"] if a["kind"] == "grad_mode"]
    assert advice["message"].startswith("1 recompile(s) because grad mode changed")
    assert (
        "for evaluation under torch.no_grad() at /scripts/eval_first.py:30 (before training) "
        "and for training with gradients at /scripts/eval_first.py:40" in advice["message"]
    )
    assert advice["evidence"]["calls"] == ["/scripts/eval_first.py:30"]
    assert "wrap the call at /scripts/eval_first.py:30 in `with torch.compiler" in advice["fix"]
    # a session saved before the compiles were listed names what it can
    (bare,) = _advice([{**_rc("0/0: GLOBAL_STATE changed: grad_mode "), "grad_mode": True}], [16])
    assert "under torch.no_grad() and for training with gradients, and" in bare["message"]
    assert "wrap it in" in bare["fix"]


def test_batch_size_guards_become_one_advice_that_tcprof_can_apply():
    (advice,) = _advice([_rc(SIZE_8_16), _rc(SIZE_16_32, 32)], [8, 16, 32])
    assert advice["kind"] == "batch_size_guard"
    assert advice["apply"] == "mark_dynamic=0"
    assert "the batch dimension (0) of args[0] changed size (8 → 16 → 32)" in advice["message"]
    assert "dynamic=True" in advice["fix"] and "mark_dynamic(x, 0)" in advice["fix"]
    assert advice["evidence"]["count"] == 2 and advice["evidence"]["where"] == ["m.py:10"]


def test_another_dimension_is_a_shape_guard_the_user_fixes():
    (advice,) = _advice([_rc(SEQ_LEN)], [8])
    assert advice["kind"] == "shape_guard" and advice["apply"] is None
    assert "dimension 1" in advice["message"] and "mark_dynamic(x, 1)" in advice["fix"]


def test_python_numbers_are_named_with_their_values_and_torchs_hint():
    advice = _advice([_rc(STEP_INT), _rc(STEP_INT.replace("== 1", "== 2")), _rc(FLOAT_ARG)], [4])
    by_name = {a["evidence"]["examples"][0].split(" ==")[0]: a for a in advice}
    step = by_name["self.step"]
    assert step["kind"] == "python_number"
    assert "the Python number self.step changed value (1, 2)" in step["message"]
    assert "allow_unspec_int_on_nn_module" in step["fix"] and "a tensor" in step["fix"]
    assert by_name["t"]["evidence"]["values"] == ["0.5"]


def test_the_recompile_limit_names_the_sizes_that_ran_eagerly_and_the_limit():
    fb = {"frame": "forward", "file": "m.py", "line": 3, "batch_size": 64, "limit": 8}
    (advice,) = fallback_advice([Fallback.of(fb)], 8)
    assert advice["kind"] == "recompile_limit"
    assert "batch size(s) 64 ran eagerly" in advice["message"]
    assert "torch._dynamo.config.recompile_limit (8)" in advice["fix"]


def test_a_graph_break_inside_a_library_names_the_library():
    gb = {
        "file": "/env/lib/python3.11/site-packages/transformers/models/gpt2/modeling_gpt2.py",
        "line": 300,
        "reason": "Data-dependent branching",
        "hints": ["Use torch.cond"],
        "count": 2,
    }
    mine = {**gb, "file": "/home/me/model.py"}
    (advice,) = library_break_advice([GraphBreak.of(gb), GraphBreak.of(mine)], "/home/me/model.py")
    assert advice["kind"] == "library_graph_break"
    assert "inside transformers" in advice["message"] and advice["fix"] == "Use torch.cond"


def test_eager_arms_get_no_advice():
    assert (
        arm_advice(_arm({"backend": "eager", "recompiles": [_rc(SIZE_8_16)]}), [8, 16], None) == []
    )


COUNTER_MODEL = """
import torch.nn as nn


class Counter(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(8, 1)
        self.calls = 0

    def forward(self, x):
        self.calls += 1
        return self.fc(x) * (1.0 + self.calls * 1e-3)
"""


def test_a_python_counter_that_changes_every_step_is_explained(tmp_path):
    model = tmp_path / "counter.py"
    model.write_text(COUNTER_MODEL)
    rc, stdout, stderr, s = run_cli(
        [str(model), "--arms", "aot_eager", "--batch-sizes", "4", "--no-accuracy", *FAST],
        tmp_path / "run",
    )
    assert rc == 0, stdout + stderr
    kinds = {a["kind"]: a for a in s["arms"][0]["advice"]}
    assert "self.calls changed value" in kinds["python_number"]["message"]
    assert "batch size(s) 4 ran eagerly" in kinds["recompile_limit"]["message"]
    assert "advice: " in stdout and "fix: " in stdout


def test_apply_advice_adds_the_fixed_arm_and_it_removes_the_recompiles(tmp_path):
    out = tmp_path / "run"
    rc, stdout, stderr, s = run_cli(
        [str(MODELS / "relu_model.py"), "--arms", "eager; aot_eager:dynamic=false"]
        + ["--batch-sizes", "8,16,32", "--apply-advice", "--no-accuracy", *FAST],
        out,
    )
    assert rc == 0, stdout + stderr
    names = [a["name"] for a in s["arms"]]
    assert names == [
        "eager",
        "aot_eager(dynamic=False)",
        "aot_eager(dynamic=False) + mark_dynamic=0",
    ]
    before, after = s["arms"][1], s["arms"][2]
    assert [a["kind"] for a in before["advice"]] == ["batch_size_guard"]
    assert len(before["recompiles"]) == 2 and after["recompiles"] == []
    assert [r["batch_size"] for r in after["results"]] == [8, 16, 32]
    assert all(r["median_ms"] for r in after["results"])
    assert s["config"]["applied_advice"] == [{"arm": 2, "from_arm": 1, "apply": "mark_dynamic=0"}]
    assert "applied advice (mark_dynamic=0)" in stdout and "recompiled 2 time(s)" in stdout
    # events.jsonl alone rebuilds the same session: the added arm is announced in it.
    events = [json.loads(line) for line in (out / "events.jsonl").read_text().splitlines()]
    assert [e["type"] for e in events].count("arms_added") == 1
    rebuilt = SessionFold.from_events(iter_events(out / "events.jsonl")).to_dict(
        include_samples=False
    )
    assert [a["name"] for a in rebuilt["arms"]] == names
    assert rebuilt["arms"][2]["results"][0]["median_ms"] == after["results"][0]["median_ms"]


# A resume function's guard on the Python number `.item()` returned at a graph break, as torch
# 2.13 records it: TorchDynamo calls the value ___stack0.
ITEM_MODEL = MODELS / "item_break_model.py"
STACK_GUARD = (
    "1/0: ___stack0 == -2.4685003757476807                         # return y * scale  # "
    "tests/support/models/item_break_model.py:15 in torch_dynamo_resume_in_forward_at_14\n"
    "User stack trace:\n"
    f'  File "{ITEM_MODEL}", line 15, in torch_dynamo_resume_in_forward_at_14\n'
    "    return y * scale"
)


def _resume_rc(reason, file=str(ITEM_MODEL)):
    frame = "torch_dynamo_resume_in_forward_at_14"
    return {"reason": reason, "batch_size": 4, "frame": frame, "file": file, "line": 14}


def _text(advice):
    return " ".join(
        [advice["message"], advice["fix"], *map(str, advice["evidence"].get("examples", []))]
    )


def test_an_item_result_is_named_by_the_users_expression_never_by_stack0():
    values = [STACK_GUARD, STACK_GUARD.replace("-2.4685003757476807", "0.5")]
    (advice,) = _advice([_resume_rc(r) for r in values], [4])
    text = _text(advice)
    assert "___stack" not in text
    assert "x.sum().item()" in advice["message"] and "item_break_model.py:14" in advice["message"]
    assert "use x.sum() in tensor arithmetic" in advice["fix"]
    assert "capture_scalar_outputs = True" in advice["fix"]
    assert advice["evidence"]["examples"][0] == "x.sum().item() == -2.4685003757476807"


def test_an_item_result_from_a_file_not_here_still_has_no_internal_name():
    (advice,) = _advice([_resume_rc(STACK_GUARD, "/elsewhere/model.py")], [4])
    assert "___stack" not in _text(advice)
    assert "where the graph broke (model.py:14)" in advice["message"]


def test_guard_sources_and_helpers_are_said_as_the_user_writes_them():
    reasons = [
        "0/1: ___check_obj_id(L['self']._modules['act'], 140234)",
        "0/2: not ___dict_contains('b', L['self'].cfg)",
        "0/3: L['self']._modules['d'].training == True",
        "0/4: L['self']._modules['d'].training == False",
    ]
    advice = _advice([_rc(r) for r in reasons], [16])
    text = " ".join(_text(a) for a in advice)
    assert "___" not in text and "L['" not in text and "_modules" not in text
    assert "self.act is the same object" in text and "'b' not in self.cfg" in text
    flag = next(a for a in advice if a["kind"] == "python_number")
    assert "the Python flag self.d.training changed value (True, False)" in flag["message"]
    assert "model.train()" in flag["fix"] and "a tensor (torch.tensor" not in flag["fix"]


def _size_rcs():
    """One size recompile per frame (forward and the rest after its graph break), 4 -> 8."""
    return [
        _rc("0/0: tensor 'x' size mismatch at index 0. expected 4, actual 8", 8),
        {
            **_rc("1/0: tensor 'y' size mismatch at index 0. expected 4, actual 8", 8),
            "frame": "torch_dynamo_resume_in_forward_at_14",
            "line": 14,
        },
    ]


def test_under_dynamic_none_the_second_size_compiles_dynamic_not_each_size():
    # the arm's options decide (dynamic absent or None: torch's default)
    arm = {"backend": "aot_eager", "options": {"dynamic": None}, "recompiles": _size_rcs()}
    (advice,) = arm_advice(_arm(arm), [4, 8, 16], None)
    assert "each new size compiled again" not in advice["message"]
    assert "under dynamic=None" in advice["message"]
    assert "the second size compiled once more with the dimension dynamic" in advice["message"]
    assert "later sizes reuse that graph" in advice["message"]
    assert "mark_dynamic(x, 0)" in advice["fix"] and advice["apply"] == "mark_dynamic=0"
    assert _advice(_size_rcs(), [4, 8, 16])[0]["message"] == advice["message"]


def test_under_dynamic_false_each_new_size_compiles_and_under_true_it_was_specialized():
    static = {"backend": "aot_eager", "options": {"dynamic": False}, "recompiles": _size_rcs()}
    (advice,) = arm_advice(_arm(static), [4, 8, 16], None)
    assert "with dynamic=False each new size compiled again" in advice["message"]
    assert "dynamic=True" in advice["fix"] and advice["apply"] == "mark_dynamic=0"
    dynamic = {**static, "options": {"dynamic": True}}
    (advice,) = arm_advice(_arm(dynamic), [1, 4, 8], None)
    assert "although dynamic=True" in advice["message"] and "specialized" in advice["message"]
    assert "this run has size 1" in advice["message"]
    assert "each new size compiled again" not in advice["message"] and advice["apply"] is None


def test_a_recompile_limit_in_a_resume_function_names_the_users_function():
    fb = {"frame": "torch_dynamo_resume_in_forward_at_14", "file": "m.py", "line": 14}
    (advice,) = fallback_advice([Fallback.of({**fb, "batch_size": 16})], 8)
    assert "reached in forward after line 14" in advice["message"]
    assert "torch_dynamo_resume" not in advice["message"]
