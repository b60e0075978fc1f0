"""A script run's compiled arm runs inductor's once-per-machine CPU check before anything
compiles, as a model file's arm does (worker/cpu_check.py): in the same folder, seeding its fresh
cache folder, said in `loaded`, so no cold or portable compile of a script holds the check.
Inductor's check is stood in for on disk (the real one builds for tens of seconds)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
import torch
from torch._inductor import cpu_vec_isa

from tcprof.profiler.config import ArmSpec
from tcprof.profiler.worker import compile_cache, cpu_check
from tests.support.paths import ROOT
from tests.support.script_harness import of_type, script_config, serve

pytestmark = pytest.mark.timeout(60, method="thread")
SCRIPT = ROOT / "tests" / "support" / "scripts" / "guide_1x.py"


@pytest.fixture
def fake_check(monkeypatch):
    """inductor's check as it behaves on disk (a source and a library per instruction set in
    the cache folder of the moment, built where missing), on a machine without CUDA."""
    builds: list[str] = []

    def valid_vec_isa_list():
        folder = Path(os.environ["TORCHINDUCTOR_CACHE_DIR"])
        lib = folder / "ab" / "cab12.so"
        if not lib.exists():
            lib.parent.mkdir(parents=True, exist_ok=True)
            (lib.parent / "cab12.cpp").write_text("// check")
            lib.write_bytes(b"\x7fELF")
            builds.append(str(folder))
        return ["avx2"]

    monkeypatch.setattr(cpu_vec_isa, "x86_isa_checker", lambda: [])
    monkeypatch.setattr(cpu_vec_isa, "valid_vec_isa_list", valid_vec_isa_list)
    monkeypatch.setattr(torch.cuda, "is_available", lambda: False)
    for name in ("TORCHINDUCTOR_CACHE_DIR", "TRITON_CACHE_DIR"):
        monkeypatch.delenv(name, raising=False)
    return builds


def _load(cfg, **fields):
    load = {"cmd": "load", "config": cfg.to_dict(), "arm_index": 0, **fields}
    events = serve([load, {"cmd": "exit"}])
    assert [e.get("failed") for e in of_type(events, "done")] == [None], events
    (loaded,) = of_type(events, "loaded")
    return loaded


def test_a_compiled_script_arm_runs_the_check_and_seeds_its_fresh_folder(tmp_path, fake_check):
    cfg = script_config(SCRIPT, arms=(ArmSpec("inductor"),))
    home, cold = tmp_path / "home", tmp_path / "cold"
    loaded = _load(cfg, cache_dir=str(cold), cpu_check_dir=str(home))
    check = loaded.get("cpu_check")
    assert check is not None and check["built"] is True and check["isas"] == ["avx2"]
    assert check["seeded"] == 2 and check["other_files"] == 0
    assert fake_check == [str(cpu_check.machine_folder(str(home)))]  # built there, not in cold
    assert sorted(p.name for p in cold.rglob("*") if p.is_file()) == ["cab12.cpp", "cab12.so"]


def test_the_portable_round_checks_before_its_artifacts_land(tmp_path, fake_check, monkeypatch):
    def load_artifacts(path):  # what a portable round loads: the model's graphs
        folder = Path(os.environ["TORCHINDUCTOR_CACHE_DIR"])
        (folder / "fxgraph").mkdir(parents=True, exist_ok=True)
        (folder / "fxgraph" / "entry").write_text("a graph of the model")
        return {"loaded": True, "artifacts": {}}

    monkeypatch.setattr(compile_cache, "load_artifacts", load_artifacts)
    cfg = script_config(SCRIPT, arms=(ArmSpec("inductor"),))
    home = str(tmp_path / "home")
    _load(cfg, cache_dir=str(tmp_path / "cold"), cpu_check_dir=home)
    artifacts = str(tmp_path / "artifacts.bin")
    fields = {"cache_dir": str(tmp_path / "portable"), "cache_artifacts": artifacts}
    check = _load(cfg, **fields, cpu_check_dir=home)["cpu_check"]
    assert check["built"] is False and check["seeded"] == 2
    assert check["other_files"] == 0  # nothing of the model was in the folder yet
    assert len(fake_check) == 1


@pytest.mark.parametrize(
    ("arm", "fields"),
    [
        ("eager", {"cpu_check_dir": "HOME"}),  # nothing compiles
        ("aot_eager", {"cache_dir": "CACHE", "cpu_check_dir": "HOME"}),  # no C++ kernels
        ("inductor", {}),  # the user's own caches (--warm-cache)
    ],
)
def test_no_check_where_a_model_arm_would_run_none(tmp_path, fake_check, arm, fields):
    cfg = script_config(SCRIPT, arms=(ArmSpec(arm),))
    paths = {"HOME": str(tmp_path / "home"), "CACHE": str(tmp_path / "cache")}
    loaded = _load(cfg, **{k: paths[v] for k, v in fields.items()})
    assert "cpu_check" not in loaded and fake_check == []
