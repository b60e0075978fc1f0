"""Inductor's once-per-machine CPU check, run before the compile instead of inside it.

Before its first CPU kernel, inductor builds a small library for each vector instruction set
the CPU claims and loads each in a child process (torch/_inductor/cpu_vec_isa.py). The libraries
are kept in the inductor cache folder, named by a hash of the check's source, the compiler, the
instruction set's flags and torch's version, and built again in an empty folder. tcprof gives
every cold and portable compile an empty folder, so each would pay the builds, which a user pays
once per machine (or per fresh cache folder, as in a new CI container).

So the check runs here, timed, in a folder of its own per machine and torch (the engine names
it, under tcprof's home folder): its libraries are built there once, and every process still
loads each one, as inductor does with a cache that holds them (the CPU is never trusted blindly:
TORCHINDUCTOR_VEC_ISA_OK is not set). Inductor keeps the answer for the process, so the compile
does not repeat it; the fresh cache folder is seeded with the check's own libraries and sources
only (never a graph, kernel or autotuning result of the model), so the compile's children find
them too. The record of the first run keeps its cost: what a new machine pays once.
"""

from __future__ import annotations

import hashlib
import json
import os
import platform
import shutil
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import torch

RECORD = "check.json"  # the first run's cost on this machine, and its instruction sets
ARTEFACTS = (".cpp", ".so")  # the check's files: source and library, in <hash[1:3]>/ folders


def wanted(backend: str, device: str, cache_dir: str | None, check_dir: str | None) -> bool:
    """Only inductor on the CPU runs the check, and only a tcprof-owned cache folder is empty."""
    return bool(cache_dir and check_dir) and backend == "inductor" and device == "cpu"


def machine_folder(check_dir: str) -> Path:
    """The check's folder for this torch and CPU: a torch upgrade or another CPU starts afresh."""
    flags = _cpu_flags()
    key = f"{torch.__version__}|{torch.__file__}|{platform.machine()}|{flags}"
    digest = hashlib.sha256(key.encode()).hexdigest()[:12]
    return Path(check_dir) / f"torch-{torch.__version__.replace('+', '-')}-{digest}"


def run(check_dir: str, cache_dir: str) -> dict[str, Any]:
    """Run the check in this machine's folder, timed, then seed `cache_dir` with its files.

    `seconds`: this process's check; `built`: this process ran it first on this machine (the
    libraries were built); `first_s`: what the first run on this machine cost; `isas`: the
    instruction sets that passed; `seeded`: files copied; `other_files`: what the cache folder
    held besides the check's files before compiling (none in a cold or portable round's
    folder: nothing of the model is carried into it). A failure is said, never raised: the
    compile then runs the check itself, as before."""
    try:
        from torch._inductor import cpu_vec_isa
        from torch.utils._filelock import FileLock

        folder = machine_folder(check_dir)
        folder.mkdir(parents=True, exist_ok=True)
        with FileLock(str(folder / ".lock"), timeout=600):
            record = _read(folder / RECORD)
            seconds, isas = _timed_check(cpu_vec_isa, folder)
            if record is None:
                record = {"seconds": seconds, "isas": isas, "at": time.time()}
                (folder / RECORD).write_text(json.dumps(record))
                built = True
            else:
                built = False
        seeded = seed(folder, Path(cache_dir))
        others = other_files(Path(cache_dir))
    except Exception as exc:  # the compile does the check itself
        return {"error": f"{type(exc).__name__}: {exc}"}
    return {
        "seconds": seconds,
        "built": built,
        "first_s": float(record.get("seconds", seconds)),
        "isas": isas,
        "seeded": seeded,
        "other_files": others,
    }


def seed(folder: Path, cache_dir: Path) -> int:
    """Copy the check's sources and libraries (nothing else) into a cache folder; a count."""
    copied = 0
    for path in sorted(folder.glob("*/*")):
        if path.suffix not in ARTEFACTS or path.parent.name == "locks":
            continue
        target = cache_dir / path.parent.name / path.name
        if target.exists():
            continue
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(path, target)
        copied += 1
    return copied


def artefacts(cache_dir: Path) -> list[Path]:
    """The check's files in a cache folder."""
    return [p for p in sorted(cache_dir.glob("*/*")) if p.suffix in ARTEFACTS]


def other_files(cache_dir: Path) -> int:
    """Files in a cache folder that are not the check's (its locks aside)."""
    mine = set(artefacts(cache_dir))
    return sum(
        1
        for p in cache_dir.rglob("*")
        if p.is_file() and p not in mine and p.parent.name != "locks"
    )


def _timed_check(cpu_vec_isa: Any, folder: Path) -> tuple[float, list[str]]:
    """inductor's own check (its list of instruction sets that pass), its cache folder pointed
    at this machine's folder for the time of it."""
    before = os.environ.get("TORCHINDUCTOR_CACHE_DIR")
    os.environ["TORCHINDUCTOR_CACHE_DIR"] = str(folder)
    start = time.perf_counter()
    try:
        _probe_side_by_side(cpu_vec_isa)
        isas = [str(isa) for isa in cpu_vec_isa.valid_vec_isa_list()]
    finally:
        if before is None:
            os.environ.pop("TORCHINDUCTOR_CACHE_DIR", None)
        else:
            os.environ["TORCHINDUCTOR_CACHE_DIR"] = before
    return time.perf_counter() - start, isas


def _probe_side_by_side(cpu_vec_isa: Any) -> None:
    """Inductor probes the instruction sets the CPU claims one after another, a child Python
    dlopening a library each (8 on a CPU with AMX: 1.6-2.8 s of a quiet machine, most of a
    compiled arm's start-up after `import torch`). The same probes, each set's in a thread of
    its own, run side by side; inductor keeps each set's answer, so its own list, asked next,
    probes nothing again. The answers are inductor's own: only their order in time changes."""
    claimed = set(cpu_vec_isa.x86_isa_checker())
    candidates = [
        isa
        for isa in cpu_vec_isa.supported_vec_isa_list
        if claimed and all(flag in claimed for flag in str(isa).split())
    ]
    if len(candidates) < 2:
        return
    with ThreadPoolExecutor(max_workers=len(candidates)) as pool:
        list(pool.map(bool, candidates))


def _read(path: Path) -> dict[str, Any] | None:
    try:
        record = json.loads(path.read_text())
    except (OSError, ValueError):
        return None
    return record if isinstance(record, dict) else None


def _cpu_flags() -> str:
    """The instruction sets the CPU claims (Linux's cpuinfo; elsewhere the processor's name)."""
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith(("flags", "Features", "features")):
                return " ".join(sorted(line.split(":", 1)[1].split()))
    except OSError:
        pass
    return platform.processor()
