"""A script run's worker, driven in this process (tests/support/script_harness.py): the real
hooks, driver and compile interception, without a worker process."""

from __future__ import annotations

import json
import os
import runpy
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
import torch

from tcprof.profiler.config import ArmSpec
from tests.support.paths import ROOT
from tests.support.script_harness import of_type, schedule, script_config, serve

pytestmark = pytest.mark.timeout(240, method="thread")
SCRIPTS = ROOT / "tests" / "support" / "scripts"


def _write(folder: Path, name: str, text: str) -> Path:
    path = folder / name
    path.write_text(textwrap.dedent(text))
    return path


def _losses(events):
    out = {}
    for e in of_type(events, "first_step"):
        out[0] = e["loss"]
    for e in of_type(events, "steps"):
        out.update({e["start"] + i: v for i, v in enumerate(e["loss"])})
    return out


def _backward_losses(path: Path, seed: int = 0) -> list[float]:
    """The losses the script itself calls backward on, run plainly (no tcprof hooks)."""
    seen: list[float] = []
    original = torch.Tensor.backward

    def backward(self, *args, **kwargs):
        seen.append(float(self.detach()))
        return original(self, *args, **kwargs)

    torch.manual_seed(seed)
    torch.Tensor.backward = backward
    try:
        runpy.run_path(str(path), run_name="__main__")
    finally:
        torch.Tensor.backward = original
    return seen


def test_the_guides_loop_is_measured_step_by_step_with_its_own_losses():
    path = SCRIPTS / "guide_1x.py"
    events = serve(schedule(script_config(path)))
    assert [(e["cmd"], e.get("failed")) for e in of_type(events, "done")] == [
        ("load", None),
        ("prepare", None),
        ("measure", None),
        ("measure", None),
        ("finish", None),
    ]
    measured = [e for e in of_type(events, "steps") if e["phase"] == "measure"]
    assert [len(e["ms"]) for e in measured] == [2, 2]
    assert all(
        len(e["own_ms"]) == len(e["ms"]) and all(v >= 0 for v in e["own_ms"]) for e in measured
    )
    plain = _backward_losses(path)
    recorded = _losses(events)
    assert recorded and all(recorded[k] == pytest.approx(plain[k], rel=1e-6) for k in recorded)
    assert sorted(recorded) == [0, 1, 3, 4, 6, 7]  # 2 and 5 are the blocks' discarded steps
    notes = [e["text"] for e in of_type(events, "script")]
    assert (
        "the model is `model`, SimpleModel (guide_1x.py:5), whose parameters SGD at guide_1x.py:14 optimizes"
        in notes
    )
    assert of_type(events, "block_done")[0]["steps"] == 2


def test_gradient_accumulation_is_one_step_and_its_loss_the_sum_of_the_micro_batches(tmp_path):
    path = _write(
        tmp_path,
        "accumulate.py",
        """
        import torch
        model = torch.nn.Linear(3, 1)
        opt = torch.optim.SGD(model.parameters(), lr=0.1)
        log = []
        for step in range(8):
            total = 0.0
            for micro in range(4):
                loss = model(torch.randn(5, 3)).pow(2).mean() / 4
                loss.backward()
                total += loss.item()
            opt.step()
            opt.zero_grad()
            log.append(total)
            open("log.json", "w").write(__import__("json").dumps(log))
        """,
    )
    events = serve(schedule(script_config(path)))
    log = json.loads((tmp_path / "log.json").read_text())
    recorded = _losses(events)
    # the schedule's 8 steps (1 + 1 warm-up + 2 x (1 discarded + 2)): the 8th ends the script in
    # its optimizer step, before it logs
    assert len(log) == 7 and max(recorded) == 7
    assert all(recorded[k] == pytest.approx(log[k], rel=1e-5) for k in recorded if k < 7)


def test_a_grad_scaler_loss_is_recorded_unscaled(tmp_path):
    path = _write(
        tmp_path,
        "scaled.py",
        """
        import json, torch
        model = torch.nn.Linear(3, 1)
        opt = torch.optim.SGD(model.parameters(), lr=0.01)
        scaler = torch.amp.GradScaler("cpu", init_scale=1024.0)
        log = []
        for step in range(8):
            loss = model(torch.randn(5, 3)).pow(2).mean()
            scaler.scale(loss).backward()
            scaler.step(opt)
            scaler.update()
            opt.zero_grad()
            log.append(loss.item())
            open("log.json", "w").write(json.dumps(log))
        """,
    )
    events = serve(schedule(script_config(path)))
    log = json.loads((tmp_path / "log.json").read_text())
    recorded = _losses(events)
    assert len(recorded) == 6 and all(
        v == pytest.approx(log[k], rel=1e-5) for k, v in recorded.items() if k < len(log)
    )


def test_evaluation_between_steps_is_the_scripts_own_time_not_compute(tmp_path):
    path = _write(
        tmp_path,
        "evaluates.py",
        """
        import time, torch
        model = torch.nn.Linear(3, 1)
        opt = torch.optim.SGD(model.parameters(), lr=0.1)
        for step in range(8):
            model.eval()
            with torch.no_grad():
                model(torch.randn(5, 3))
                time.sleep(0.1)
            model.train()
            model(torch.randn(5, 3)).pow(2).mean().backward()
            opt.step()
            opt.zero_grad()
        """,
    )
    events = serve(schedule(script_config(path)))
    measured = [e for e in of_type(events, "steps") if e["phase"] == "measure"]
    assert all(own >= 100 for e in measured for own in e["own_ms"])  # the evaluation's sleep
    assert all(ms < own for e in measured for ms, own in zip(e["ms"], e["own_ms"], strict=True))


def test_the_scripts_own_compile_runs_uncompiled_in_the_eager_arm_and_with_the_arms_options(
    tmp_path,
):
    path = SCRIPTS / "guide_2x.py"
    cfg = script_config(path, arms=(ArmSpec("eager"), ArmSpec("dynamo_eager", fullgraph=True)))
    eager = [e["text"] for e in of_type(serve(schedule(cfg, 0)), "script")]
    assert any(
        "the script's own torch.compile at guide_2x.py:14 (SimpleModel) returned it uncompiled" in t
        for t in eager
    )
    compiled = serve(schedule(cfg, 1))
    texts = [e["text"] for e in of_type(compiled, "script")]
    assert any(
        "the script's own torch.compile at guide_2x.py:14 (SimpleModel) ran with backend=eager, "
        "fullgraph=True (the script gave no arguments)" in t
        for t in texts
    )
    assert of_type(compiled, "compile") and not any(
        e["kind"] == "in_place" for e in of_type(compiled, "script")
    )
    assert all(len(e["own_ms"]) == len(e["ms"]) for e in of_type(compiled, "steps"))


def test_a_script_that_does_not_compile_has_its_model_compiled_in_place(tmp_path):
    (tmp_path / "out").mkdir()
    path = _write(
        tmp_path,
        "plain.py",
        """
        import json, torch
        from torch import nn
        model = nn.Sequential(nn.Linear(3, 8), nn.ReLU(), nn.Linear(8, 1))
        opt = torch.optim.Adam(model.parameters())
        for step in range(8):
            model(torch.randn(4, 3)).sum().backward()
            opt.step()
            opt.zero_grad()
            torch.save(model.state_dict(), "out/weights.pt")
        """,
    )
    cfg = script_config(path, arms=(ArmSpec("eager"), ArmSpec("dynamo_eager")))
    events = serve(schedule(cfg, 1))
    texts = [e["text"] for e in of_type(events, "script") if e["kind"] == "in_place"]
    assert texts == [
        "`model`, Sequential (torch.nn.modules.container), compiled in place with backend=eager"
    ]
    assert of_type(events, "compile")  # TorchDynamo did compile it
    assert list(torch.load(tmp_path / "out" / "weights.pt")) == [
        "0.weight",
        "0.bias",
        "2.weight",
        "2.bias",
    ]
    files = [e for e in of_type(events, "script") if e["kind"] == "files"]
    assert [f["path"] for f in files[0]["files"]] == [str(tmp_path / "out" / "weights.pt")]


def test_step_on_forward_counts_the_calls_of_the_model_after_the_first(tmp_path):
    path = _write(
        tmp_path,
        "serve.py",
        """
        import json, torch
        model = torch.nn.Linear(3, 1)
        calls = 0
        with torch.no_grad():
            for i in range(9):
                model(torch.randn(2, 3))
                calls += 1
                open("calls.json", "w").write(json.dumps(calls))
        """,
    )
    events = serve(schedule(script_config(path, step_on="forward")))
    assert [e.get("failed") for e in of_type(events, "done")] == [None] * 5
    assert of_type(events, "first_step")[0]["loss"] is None
    # the first call found the model; the 8th step (the 9th call) ends the script inside it
    assert json.loads((tmp_path / "calls.json").read_text()) == 8


def test_the_script_runs_as_python_runs_it(tmp_path):
    work = tmp_path / "work"
    work.mkdir()
    (tmp_path / "helper.py").write_text("VALUE = 7\n")
    path = _write(
        tmp_path,
        "probe.py",
        """
        import json, os, sys, torch
        import helper
        model = torch.nn.Linear(1, 1)
        opt = torch.optim.SGD(model.parameters(), lr=0.1)
        facts = {"argv": sys.argv, "path0": sys.path[0], "cwd": os.getcwd(), "name": __name__,
                 "stdin": sys.stdin.read(), "helper": helper.VALUE}
        open("facts.json", "w").write(json.dumps(facts))
        for step in range(8):
            model(torch.ones(1, 1)).sum().backward()
            opt.step()
        """,
    )
    events = serve(
        schedule(script_config(path, ("--n={n}",), sweep="n", cwd=str(work), batch_sizes=(3,)))
    )
    facts = json.loads((work / "facts.json").read_text())
    assert facts == {
        "argv": [str(path), "--n=3"],
        "path0": str(tmp_path),
        "cwd": str(work),
        "name": "__main__",
        "stdin": "",
        "helper": 7,
    }
    assert "helper" not in sys.modules  # forgotten: a second run imports it afresh
    assert not of_type(events, "error")


def test_tcprof_ends_the_script_through_its_finally_even_when_it_catches_everything(tmp_path):
    path = _write(
        tmp_path,
        "stubborn.py",
        """
        import torch
        model = torch.nn.Linear(1, 1)
        opt = torch.optim.SGD(model.parameters(), lr=0.1)
        try:
            for step in range(1000):
                try:
                    model(torch.ones(1, 1)).sum().backward()
                    opt.step()
                except BaseException:
                    pass  # swallows tcprof's stop once; the next hook stops it again
        finally:
            open("finally.txt", "w").write("ran")
        """,
    )
    events = serve(schedule(script_config(path)))
    assert (tmp_path / "finally.txt").read_text() == "ran"
    assert not of_type(events, "error")


def test_a_step_the_grad_scaler_skips_is_still_a_step_with_its_own_loss(tmp_path):
    path = _write(
        tmp_path,
        "skips.py",
        """
        import json, torch
        model = torch.nn.Linear(3, 1)
        opt = torch.optim.SGD(model.parameters(), lr=0.01)
        scaler = torch.amp.GradScaler("cpu", init_scale=1024.0)
        log = []
        for step in range(8):
            x = torch.randn(5, 3)
            if step == 3:
                x[0, 0] = float("inf")  # inf gradients: the scaler skips this optimizer step
            loss = model(x).pow(2).mean()
            scaler.scale(loss).backward()
            scaler.step(opt)
            scaler.update()
            opt.zero_grad()
            log.append(loss.item())
            open("log.json", "w").write(json.dumps(log))
        """,
    )
    events = serve(schedule(script_config(path)))
    log = json.loads((tmp_path / "log.json").read_text())
    recorded = _losses(events)
    assert recorded[3] == float("inf")  # the skipped step's own loss, not summed into step 4
    assert all(v == pytest.approx(log[k], rel=1e-5) for k, v in recorded.items() if k < len(log))
    assert sorted(recorded) == [0, 1, 3, 4, 6, 7]  # the schedule's steps, as with no skip
    (note,) = [e for e in of_type(events, "script") if e.get("kind") == "skipped_steps"]
    assert note["skipped"] == 1 and note["text"].startswith("the GradScaler skipped 1 of")


def test_a_second_optimizer_is_part_of_the_first_ones_steps_and_said_once(tmp_path):
    path = _write(
        tmp_path,
        "two_optimizers.py",
        """
        import torch
        critic, actor = torch.nn.Linear(3, 1), torch.nn.Linear(3, 3)
        opt_c = torch.optim.SGD(critic.parameters(), lr=0.01)
        opt_a = torch.optim.Adam(actor.parameters(), lr=0.01)
        for step in range(8):
            x = torch.randn(5, 3)
            critic(actor(x).detach()).mean().backward()
            opt_c.step()
            opt_c.zero_grad()
            (-critic(actor(x)).mean()).backward()
            opt_a.step()
            opt_a.zero_grad()
        """,
    )
    events = serve(schedule(script_config(path)))
    assert [(e["cmd"], e.get("failed")) for e in of_type(events, "done")][-1] == ("finish", None)
    assert sorted(_losses(events)) == [0, 1, 3, 4, 6, 7]  # one step per iteration
    others = [e["text"] for e in of_type(events, "script") if e.get("kind") == "other_optimizer"]
    assert others == [
        "another optimizer, Adam, steps too: the steps counted are the first's (SGD), and the "
        "other's steps are part of them"
    ]


def test_a_fresh_eager_arm_has_torchdynamo_imported_before_the_script_starts(tmp_path):
    """Start-up is the script's own in every arm: a script's optimizer imports TorchDynamo
    (torch.optim's constructors do), which a compiled arm (its compile watcher) and a forked
    worker (the fork server) had imported before the script's clock started, and a fresh
    eager arm paid inside its start-up (5.4 s against aot_eager's 0.05 s here). In a fresh
    interpreter, an eager arm's `load` leaves nothing of it for the script to import."""
    probe = textwrap.dedent(
        f"""
        import json, sys
        from pathlib import Path
        from tcprof.profiler.worker.script.worker import ScriptWorker
        from tests.support.script_harness import RecordingChannel, script_config

        before = "torch._dynamo" in sys.modules
        cfg = script_config(Path({str(SCRIPTS / "relu_net.py")!r}))
        ScriptWorker(RecordingChannel(), None).load(cfg.to_dict(), 0)
        print(json.dumps([before, "torch._dynamo" in sys.modules]))
        """
    )
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    done = subprocess.run(
        [sys.executable, "-c", probe], env=env, cwd=ROOT, capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout.splitlines()[-1]) == [False, True]
