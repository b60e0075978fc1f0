"""Weights saved from a compiled arm load into the plain eager model with strict=True."""

from __future__ import annotations

import importlib.util

import torch

from tcprof.profiler.config.examples import example_path
from tcprof.profiler.worker.weights import clean_state_dict
from tests.support.cli import FAST, arm, run_cli


def _example_module(name):
    spec = importlib.util.spec_from_file_location(f"ex_{name}", example_path(name))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_compiled_state_dict_keys_lose_the_orig_mod_prefix():
    model = torch.nn.Sequential(torch.nn.Linear(3, 4), torch.nn.Linear(4, 1))
    compiled = torch.compile(model, backend="eager")
    assert all(k.startswith("_orig_mod.") for k in compiled.state_dict())
    cleaned = clean_state_dict(compiled)
    fresh = torch.nn.Sequential(torch.nn.Linear(3, 4), torch.nn.Linear(4, 1))
    fresh.load_state_dict(cleaned, strict=True)


def test_saved_weights_from_a_compiled_arm_load_strictly(tmp_path):
    from safetensors.torch import load_file

    rc, _, _, s = run_cli(
        [
            "--example",
            "tiny_gpt",
            "--arms",
            "eager,aot_eager",
            "--batch-sizes",
            "2",
            "--save-weights",
            "safetensors",
            *FAST,
            "--no-accuracy",
        ],
        tmp_path,
    )
    assert rc == 0
    saved = next(a for a in arm(s, "aot_eager")["artifacts"] if a["kind"] == "weights")
    assert saved["verified"]
    state = load_file(saved["path"])
    assert not any("_orig_mod" in k for k in state)
    module = _example_module("tiny_gpt")
    fresh = module.make_model()
    fresh.load_state_dict(state, strict=True)
    # trained, so not the initial weights
    torch.manual_seed(0)
    initial = module.make_model().state_dict()
    assert any(not torch.equal(initial[k], state[k]) for k in state)
