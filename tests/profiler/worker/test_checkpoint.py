"""--weights: the user's checkpoint, read without running code and loaded strictly."""

from __future__ import annotations

import json
import pickle
import sys

import pytest
import torch
from safetensors.torch import save_file

from tcprof.profiler.model.session import SessionModel
from tcprof.profiler.report.html import render_html
from tcprof.profiler.report.markdown import render_markdown
from tcprof.profiler.report.reproduce import render_reproducer
from tests.profiler.report.test_reproduce import LOSS, run_script
from tests.support.cli import FAST, MODELS, run_cli

sys.path.insert(0, str(MODELS))
from relu_model import ReluNet  # noqa: E402

from tcprof.profiler.worker.checkpoint import CheckpointError, load_into, read_tensors  # noqa: E402


def _trained() -> ReluNet:
    torch.manual_seed(123)
    return ReluNet()


def _equal(a: torch.nn.Module, b: torch.nn.Module) -> bool:
    sa, sb = a.state_dict(), b.state_dict()
    return sa.keys() == sb.keys() and all(torch.equal(sa[k], sb[k]) for k in sa)


def test_a_compiled_models_checkpoint_loads_into_the_plain_model(tmp_path):
    source = _trained()
    compiled = torch.compile(source, backend="eager")
    assert all(k.startswith("_orig_mod.") for k in compiled.state_dict())
    path = tmp_path / "compiled.pt"
    torch.save(compiled.state_dict(), path)
    fresh = ReluNet()
    assert not _equal(fresh, source)
    assert load_into(fresh, path) == {"path": str(path), "tensors": 4}
    assert _equal(fresh, source)


def test_a_ddp_checkpoint_nested_with_training_state_loads(tmp_path):
    source = _trained()
    state = {f"module.{k}": v for k, v in source.state_dict().items()}
    path = tmp_path / "ddp.pth"
    torch.save({"epoch": 3, "model": state, "optimizer": {"lr": 0.1}}, path)
    fresh = ReluNet()
    load_into(fresh, path)
    assert _equal(fresh, source)


def test_safetensors_loads(tmp_path):
    source = _trained()
    path = tmp_path / "w.safetensors"
    save_file({k: v.contiguous() for k, v in source.state_dict().items()}, str(path))
    fresh = ReluNet()
    load_into(fresh, path)
    assert _equal(fresh, source)


def test_a_checkpoint_of_another_model_lists_its_keys_with_shapes(tmp_path):
    other = torch.nn.Sequential(torch.nn.Linear(8, 16), torch.nn.Linear(16, 2))
    path = tmp_path / "other.pt"
    torch.save(other.state_dict(), path)
    with pytest.raises(CheckpointError) as err:
        load_into(ReluNet(), path)
    message = str(err.value)
    assert (
        "missing (4): fc1.weight [16x8], fc1.bias [16], fc2.weight [1x16], fc2.bias [1]" in message
    )
    assert "unexpected (4): 0.weight [16x8]" in message


def test_a_shape_mismatch_is_named(tmp_path):
    state = _trained().state_dict()
    state["fc2.weight"] = torch.zeros(3, 16)
    path = tmp_path / "bad.pt"
    torch.save(state, path)
    with pytest.raises(
        CheckpointError, match=r"wrong shape \(1\): fc2.weight \[3x16 in the file, 1x16"
    ):
        load_into(ReluNet(), path)


class Payload:
    """Unpickling this would run code: it writes a marker file."""

    def __init__(self, marker):
        self.marker = marker

    def __reduce__(self):
        return (open, (str(self.marker), "w"))


def test_a_pickle_with_a_payload_is_refused_without_running_it(tmp_path):
    marker = tmp_path / "payload-ran"
    path = tmp_path / "evil.pt"
    with open(path, "wb") as f:
        pickle.dump({"fc1.weight": Payload(marker)}, f)
    with pytest.raises(CheckpointError, match="will not unpickle"):
        read_tensors(path)
    assert not marker.exists()


def test_other_files_are_refused_by_name(tmp_path):
    path = tmp_path / "weights.npz"
    path.write_bytes(b"x")
    with pytest.raises(CheckpointError, match=r"\.safetensors, \.pt, \.pth, \.bin"):
        read_tensors(path)


def test_every_arm_starts_from_the_checkpoint(tmp_path):
    source = _trained()
    weights = tmp_path / "trained.pt"
    torch.save(torch.compile(source, backend="eager").state_dict(), weights)
    out = tmp_path / "run"
    rc, stdout, stderr, s = run_cli(
        [str(MODELS / "relu_model.py"), "--arms", "eager,aot_eager", "--batch-sizes", "4"]
        + ["--weights", str(weights), "--no-accuracy", "--lr", "1e-12", "--save-weights", "pt"]
        + FAST,
        out,
    )
    assert rc == 0, stdout + stderr
    assert s["config"]["weights"] == str(weights)
    loaded = [
        json.loads(line)
        for line in (out / "events.jsonl").read_text().splitlines()
        if '"type":"loaded"' in line
    ]
    assert [e["weights"] for e in loaded] == [{"path": str(weights), "tensors": 4}] * 2
    # With a learning rate of 1e-12 the trained weights are the checkpoint's, not the seed's.
    for a in s["arms"]:
        saved = next(x for x in a["artifacts"] if x["kind"] == "weights")
        after = torch.load(saved["path"], weights_only=True)
        for key, value in source.state_dict().items():
            torch.testing.assert_close(after[key], value, rtol=0, atol=1e-6)
    assert "weights trained.pt" in render_markdown(SessionModel.read(s))
    assert f'<th>weights</th><td class="wrap">{weights}</td>' in render_html(SessionModel.read(s))
    # The reproducer starts from the same checkpoint: its first loss is the measured one.
    printed = run_script(render_reproducer(SessionModel.read(s), "eager"), tmp_path, "--steps", "2")
    measured = s["arms"][0]["results"][0]["first_loss"]
    assert abs(float(LOSS.search(printed).group(1)) - measured) < 1e-5


def test_a_missing_weights_file_is_a_usage_error_before_any_worker(tmp_path):
    rc, _, stderr, s = run_cli(
        [str(MODELS / "relu_model.py"), "--arms", "eager", "--weights", str(tmp_path / "no.pt")]
        + FAST,
        tmp_path / "run",
    )
    assert rc == 2 and "--weights: no such file" in stderr and s is None
