"""Loss parity: the curves of eager and a compiled arm over the first steps, from the same seeds."""

from __future__ import annotations

import math

import pytest

from tcprof.profiler.worker.script.parity import (
    ATOL,
    RTOL,
    compare_losses,
    retry_with_fallback_random,
)


def test_identical_curves_pass_and_report_the_worst_step():
    eager = [2.0, 1.5, 1.2]
    out = compare_losses(eager, list(eager), [2.0, 1.5 * (1 + 1e-5), 1.2])
    assert out["status"] == "pass" and out["steps"] == 3 and out["failed_step"] is None
    assert out["worst"]["name"] == "loss at step 1" and math.isclose(
        out["worst"]["max_rel_err"], 1e-5
    )
    assert (out["rtol"], out["atol"]) == (RTOL, ATOL)


def test_the_verdict_names_the_first_step_where_the_curves_part():
    eager = [2.0, 1.5, 1.2, 1.0]
    out = compare_losses(eager, list(eager), [2.0, 1.5, 1.25, 1.4])
    assert out["status"] == "fail" and out["failed_step"] == 2
    assert "the loss curves part at step 2: eager 1.2, this arm 1.25" in out["reason"]


def test_two_eager_runs_that_differ_make_the_script_nondeterministic_and_the_arm_unjudged():
    out = compare_losses([2.0, 1.5], [2.0, 1.6], [9.0, 9.0])
    assert out["status"] == "nondeterministic" and out["failed_step"] == 1
    assert "the compiled run is not judged" in out["reason"]


def test_no_loss_means_nothing_to_compare_and_tolerances_can_be_widened():
    assert compare_losses([None, None], [None, None], [None, None])["status"] == "skipped"
    assert compare_losses([], [], [])["status"] == "skipped"
    assert compare_losses([1.0], [1.0], [1.05], rtol=0.1)["status"] == "pass"
    assert compare_losses([1.0], [1.0], [float("nan")])["status"] == "fail"


def test_a_wrong_compile_parts_from_eager_at_the_first_step_and_a_right_one_does_not():
    """The script's own accuracy pass, in this process: relu_accuracy_error_TESTING_ONLY
    rewrites torch.relu (which the script calls) into x + 1."""
    import json

    import pytest

    from tcprof.profiler.config import ArmSpec
    from tcprof.profiler.worker.command_stream import CommandReader
    from tcprof.profiler.worker.script.commands import serve_script
    from tests.support.paths import ROOT
    from tests.support.script_harness import RecordingChannel, of_type, script_config

    path = ROOT / "tests" / "support" / "scripts" / "relu_net.py"
    arms = (ArmSpec("eager"), ArmSpec("aot_eager"), ArmSpec("relu_accuracy_error_TESTING_ONLY"))
    cfg = script_config(path, arms=arms)
    verdicts = []
    for index in (1, 2):
        channel = RecordingChannel()
        lines = [json.dumps({"cmd": "accuracy", "batch_sizes": [1]}) + "\n"]
        serve_script(
            channel,
            CommandReader(lines, channel),
            {"cmd": "load", "config": cfg.to_dict(), "arm_index": index},
        )
        verdicts.append(of_type(channel.events, "accuracy")[0])
    right, wrong = verdicts
    assert right["status"] == "pass" and right["steps"] == 6  # 1 + --warmup 1 + --steps 4
    assert wrong["status"] == "fail" and wrong["failed_step"] == 0
    assert wrong["reason"].startswith("the loss curves part at step 0: eager ")
    assert wrong["curves"]["eager"][0] == pytest.approx(right["curves"]["eager"][0])
    # the right arm was judged as it is, from the warm cache; the wrong one parted from eager,
    # so it ran once more with fallback_random (in case only its random draws differed)
    assert right["fallback_random"] is False and wrong["fallback_random"] is True


def test_only_a_compiled_curve_that_parts_runs_again_with_fallback_random():
    """fallback_random is part of inductor's cache key: running with it first recompiled every
    graph of the script. It is needed only where random draws may be all that differs."""
    failed = compare_losses([2.0, 1.5], [2.0, 1.5], [2.0, 1.9])
    passed = compare_losses([2.0, 1.5], [2.0, 1.5], [2.0, 1.5])
    unsure = compare_losses([2.0, 1.5], [2.0, 1.6], [2.0, 1.9])
    assert retry_with_fallback_random(failed, compiled=True, fallback=False)
    assert not retry_with_fallback_random(failed, compiled=True, fallback=True), "once"
    assert not retry_with_fallback_random(failed, compiled=False, fallback=False)
    assert not retry_with_fallback_random(passed, compiled=True, fallback=False)
    assert not retry_with_fallback_random(unsure, compiled=True, fallback=False)


@pytest.mark.inductor
@pytest.mark.timeout(300)
def test_inductors_dropout_parts_from_eager_and_is_judged_again_with_fallback_random(tmp_path):
    """A script with dropout under inductor: its first curve parts from eager's (other masks),
    the run with fallback_random draws eager's and passes; the verdict says which was judged."""
    import json

    from tcprof.profiler.config import ArmSpec
    from tcprof.profiler.worker.command_stream import CommandReader
    from tcprof.profiler.worker.script.commands import serve_script
    from tests.support.paths import ROOT
    from tests.support.script_harness import RecordingChannel, of_type, script_config

    path = ROOT / "tests" / "support" / "scripts" / "dropout_net.py"
    cfg = script_config(path, arms=(ArmSpec("eager"), ArmSpec("inductor")))
    channel = RecordingChannel()
    lines = [json.dumps({"cmd": "accuracy", "batch_sizes": [1]}) + "\n"]
    load = {"cmd": "load", "config": cfg.to_dict(), "arm_index": 1}
    load["cache_dir"] = str(tmp_path / "cache")
    serve_script(channel, CommandReader(lines, channel), load)
    verdict = of_type(channel.events, "accuracy")[0]
    assert verdict["status"] == "pass", verdict.get("reason")
    assert verdict["fallback_random"] is True


def test_a_retry_with_fallback_random_that_fails_keeps_the_first_verdict_and_says_why():
    """The retry is a second chance, not the verdict: a script that fails under the switch
    keeps the fail of the run it was judged by, and the reason names the retry's error."""
    import json

    from tcprof.profiler.config import ArmSpec
    from tcprof.profiler.worker.command_stream import CommandReader
    from tcprof.profiler.worker.script.commands import serve_script
    from tests.support.paths import ROOT
    from tests.support.script_harness import RecordingChannel, of_type, script_config

    path = ROOT / "tests" / "support" / "scripts" / "relu_net_no_fallback.py"
    cfg = script_config(path, arms=(ArmSpec("eager"), ArmSpec("relu_accuracy_error_TESTING_ONLY")))
    channel = RecordingChannel()
    serve_script(
        channel,
        CommandReader([json.dumps({"cmd": "accuracy", "batch_sizes": [1]}) + "\n"], channel),
        {"cmd": "load", "config": cfg.to_dict(), "arm_index": 1},
    )
    (verdict,) = of_type(channel.events, "accuracy")
    assert verdict["status"] == "fail" and verdict["failed_step"] == 0
    assert verdict["fallback_random"] is False
    assert verdict["reason"].startswith("the loss curves part at step 0: eager ")
    assert "run again with fallback_random, the arm failed: " in verdict["reason"]
    assert "this script refuses fallback_random" in verdict["reason"]
