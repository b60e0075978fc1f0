"""Inductor's once-per-machine CPU check runs before the compile, in a folder of its own per
machine: built once, timed, its first cost recorded; each fresh cache folder is seeded with the
check's files and nothing else. Inductor's check is stood in for here (the real one builds for
tens of seconds); the real one runs in tests/profiler/run/test_measurement.py's inductor run."""

from __future__ import annotations

import os
import threading
from pathlib import Path

import pytest
from torch._inductor import cpu_vec_isa

from tcprof.profiler.worker import cpu_check

pytestmark = pytest.mark.timeout(60)


@pytest.fixture(autouse=True)
def no_real_probes(monkeypatch):
    """The probes run side by side before inductor's list is asked: none here but a test's own."""
    monkeypatch.setattr(cpu_vec_isa, "x86_isa_checker", lambda: [])


@pytest.fixture
def fake_check(monkeypatch):
    """inductor's check as it behaves on disk: a source and a library per instruction set in
    the cache folder of the moment, built only where missing; counts its builds."""
    builds: list[str] = []

    def valid_vec_isa_list():
        folder = Path(os.environ["TORCHINDUCTOR_CACHE_DIR"])
        for key in ("cab12", "ccd34"):
            lib = folder / key[1:3] / f"{key}.so"
            if not lib.exists():
                lib.parent.mkdir(parents=True, exist_ok=True)
                (lib.parent / f"{key}.cpp").write_text("// check")
                lib.write_bytes(b"\x7fELF")
                builds.append(key)
        (folder / "locks").mkdir(exist_ok=True)
        (folder / "locks" / "cab12.lock").write_text("")
        return ["avx512", "avx2"]

    monkeypatch.setattr(cpu_vec_isa, "valid_vec_isa_list", valid_vec_isa_list)
    monkeypatch.delenv("TORCHINDUCTOR_CACHE_DIR", raising=False)
    return builds


def test_the_check_is_built_once_per_machine_and_seeds_each_fresh_folder(tmp_path, fake_check):
    home = tmp_path / "home"
    first = cpu_check.run(str(home), str(tmp_path / "cold"))
    assert first["built"] is True and first["isas"] == ["avx512", "avx2"]
    assert first["first_s"] == first["seconds"] >= 0
    assert first["seeded"] == 4 and first["other_files"] == 0
    assert fake_check == ["cab12", "ccd34"]
    assert "TORCHINDUCTOR_CACHE_DIR" not in os.environ  # the compile's folder is set after

    second = cpu_check.run(str(home), str(tmp_path / "portable"))
    assert second["built"] is False and second["first_s"] == first["first_s"]
    assert fake_check == ["cab12", "ccd34"]  # nothing built again
    seeded = tmp_path / "portable"
    names = sorted(p.relative_to(seeded).as_posix() for p in seeded.rglob("*") if p.is_file())
    assert names == ["ab/cab12.cpp", "ab/cab12.so", "cd/ccd34.cpp", "cd/ccd34.so"]  # no locks


def test_a_folder_that_holds_more_than_the_check_says_so(tmp_path, fake_check):
    warm = tmp_path / "warm"
    (warm / "fxgraph").mkdir(parents=True)
    (warm / "fxgraph" / "entry").write_text("a graph of the model")
    checked = cpu_check.run(str(tmp_path / "home"), str(warm))
    assert checked["other_files"] == 1 and checked["seeded"] == 4


def test_the_machine_folder_follows_torch_and_the_cpu(tmp_path):
    folder = cpu_check.machine_folder(str(tmp_path))
    assert folder.parent == tmp_path and folder.name.startswith("torch-")
    assert "+" not in folder.name and folder == cpu_check.machine_folder(str(tmp_path))


def test_a_failed_check_is_said_and_left_to_the_compile(tmp_path, monkeypatch):
    def broken():
        raise RuntimeError("no compiler")

    monkeypatch.setattr(cpu_vec_isa, "valid_vec_isa_list", broken)
    assert cpu_check.run(str(tmp_path), str(tmp_path / "c")) == {
        "error": "RuntimeError: no compiler"
    }


@pytest.mark.parametrize(
    ("backend", "device", "cache_dir", "check_dir", "wanted"),
    [
        ("inductor", "cpu", "/c", "/h", True),
        ("aot_eager", "cpu", "/c", "/h", False),  # no C++ kernels
        ("inductor", "cuda", "/c", "/h", False),  # Triton kernels, no vector check
        ("inductor", "cpu", None, "/h", False),  # the user's own caches (--warm-cache)
        ("inductor", "cpu", "/c", None, False),
    ],
)
def test_only_inductor_on_the_cpu_in_a_tcprof_folder_runs_it(
    backend, device, cache_dir, check_dir, wanted
):
    assert cpu_check.wanted(backend, device, cache_dir, check_dir) is wanted


class _Isa:
    """An instruction set whose probe (its truth, as inductor's) waits for the other's: it
    passes only when the two run side by side."""

    def __init__(self, name: str, meet: threading.Barrier) -> None:
        self.name, self.meet, self.probes = name, meet, 0
        self.answer: bool | None = None  # kept once probed, as inductor keeps it

    def __str__(self) -> str:
        return self.name

    def __bool__(self) -> bool:
        if self.answer is None:
            self.probes += 1
            self.meet.wait()
            self.answer = True
        return self.answer


def test_the_instruction_sets_are_probed_side_by_side_and_once(tmp_path, monkeypatch):
    meet = threading.Barrier(2, timeout=10)  # one after the other: broken, and the check fails
    isas = [_Isa("avx512", meet), _Isa("avx2", meet), _Isa("neon", meet)]

    def valid_vec_isa_list():  # inductor's list of the sets the CPU claims that pass
        return [i for i in isas[:2] if i]

    monkeypatch.setattr(cpu_vec_isa, "x86_isa_checker", lambda: ["avx2", "avx512"])
    monkeypatch.setattr(cpu_vec_isa, "supported_vec_isa_list", isas)
    monkeypatch.setattr(cpu_vec_isa, "valid_vec_isa_list", valid_vec_isa_list)
    checked = cpu_check.run(str(tmp_path / "home"), str(tmp_path / "cold"))
    assert checked.get("isas") == ["avx512", "avx2"], checked
    assert [i.probes for i in isas] == [1, 1, 0]  # the set the CPU does not claim: never probed
