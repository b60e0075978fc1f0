"""A deliberate `.item()` graph break, for real (TorchDynamo with backend="eager"): what the
session says of it is in the user's words, not TorchDynamo's."""

from __future__ import annotations

from tests.support.cli import FAST, MODELS, arm, run_cli


def test_an_item_break_is_named_and_advised_in_the_users_words(tmp_path):
    model = MODELS / "item_break_model.py"
    rc, stdout, stderr, s = run_cli(
        [str(model), "--arms", "eager; dynamo_eager", "--batch-sizes", "4,8,16", *FAST],
        tmp_path,
    )
    assert rc == 0, stdout + stderr
    compiled = arm(s, "dynamo_eager")
    (gb,) = compiled["graph_breaks"]
    assert gb["file"] == str(model) and gb["line"] == 14
    # torch 2.13 wraps it: "Encountered graph break when attempting to trace CALL: ...:"
    assert "Tensor.item()" in gb["reason"], gb
    assert not gb["reason"].startswith("Encountered graph break")
    assert f"item_break_model.py:14: {gb['reason']}" in stdout

    advice = compiled["advice"]
    said = " ".join(f"{a['message']} {a['fix']} {a['evidence'].get('examples')}" for a in advice)
    assert "___stack" not in said and "___stack" not in stdout.split("advice:", 1)[1]
    number = next(a for a in advice if a["kind"] == "python_number")
    assert "x.sum().item()" in number["message"], number
    assert "use x.sum() in tensor arithmetic" in number["fix"]

    # dynamic=None (torch's default): the second size compiles dynamic, the third reuses it
    # (the first recompiles too, for the .item() value's second value)
    assert [r["compile_status"] for r in compiled["results"]][1:] == ["recompiled", "reused"]
    sizes = next(a for a in advice if a["kind"] == "batch_size_guard")
    assert "each new size compiled again" not in sizes["message"]
    assert "the second size compiled once more with the dimension dynamic" in sizes["message"]
