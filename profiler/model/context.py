"""Where and on what a session ran, typed and read-only: the interpreter, torch and device
(`Environment`: the session's, and an arm's own with `python=`), where its code came from
(`Provenance`), and which sessions measure the same thing (`Series`)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from tcprof.profiler.model.json_values import as_float as _float
from tcprof.profiler.model.json_values import as_int as _int
from tcprof.profiler.model.json_values import as_str as _str
from tcprof.profiler.model.json_values import freeze


def _texts(value: Any) -> tuple[str, ...]:
    return tuple(v for v in value or () if isinstance(v, str))


@dataclass(frozen=True)
class Environment:
    """What a worker ran on, as its hello said: the protocol, torch, triton and Python versions,
    the interpreter, platform, device and CPU, threads, CUDA and its devices, the backends
    torch.compile offered, the process id and the device's memory in MB."""

    protocol: int | None
    torch: str | None
    triton: str | None
    python: str | None
    executable: str | None
    platform: str | None
    device: str | None
    device_name: str | None
    cpu: str | None
    cpu_count: int | None
    torch_threads: int | None
    cuda: str | None
    cuda_available: bool | None
    devices: tuple[str, ...]
    backends: tuple[str, ...]
    pid: int | None
    cuda_memory_mb: float | None

    @classmethod
    def of(cls, value: Any) -> Environment:
        env: Mapping[str, Any] = value if isinstance(value, Mapping) else {}
        available = env.get("cuda_available")
        return cls(
            protocol=_int(env.get("protocol")),
            torch=_str(env.get("torch")),
            triton=_str(env.get("triton")),
            python=_str(env.get("python")),
            executable=_str(env.get("executable")),
            platform=_str(env.get("platform")),
            device=_str(env.get("device")),
            device_name=_str(env.get("device_name")),
            cpu=_str(env.get("cpu")),
            cpu_count=_int(env.get("cpu_count")),
            torch_threads=_int(env.get("torch_threads")),
            cuda=_str(env.get("cuda")),
            cuda_available=available if isinstance(available, bool) else None,
            devices=_texts(env.get("devices")),
            backends=_texts(env.get("backends")),
            pid=_int(env.get("pid")),
            cuda_memory_mb=_float(env.get("cuda_memory_mb")),
        )


@dataclass(frozen=True)
class Provenance:
    """Where a session's code and figures came from: the git commit (`commit` full, `short`),
    `branch` (None: detached) and `dirty` (None: unknown) of the repository holding the model
    file or script (all None outside one, or in sessions before schema 4), `file` relative to
    that repository's root, and the versions and device the run used (the first worker's)."""

    commit: str | None
    short: str | None
    branch: str | None
    dirty: bool | None
    repository: str | None
    file: str | None
    tcprof: str | None
    torch: str | None
    triton: str | None
    python: str | None
    device: str | None
    device_name: str | None

    @classmethod
    def of(cls, session: Mapping[str, Any]) -> Provenance:
        env = session.get("environment") or {}
        recorded = session.get("provenance") or {}
        git = recorded.get("git") or {}
        dirty = git.get("dirty")
        return cls(
            commit=_str(git.get("commit")),
            short=_str(git.get("short")),
            branch=_str(git.get("branch")),
            dirty=dirty if isinstance(dirty, bool) else None,
            repository=_str(git.get("root")),
            file=_str(git.get("path")),
            tcprof=_str(recorded.get("tcprof")),
            torch=_str(env.get("torch")),
            triton=_str(env.get("triton")),
            python=_str(env.get("python")),
            device=_str(env.get("device")),
            device_name=_str(env.get("device_name")),
        )


@dataclass(frozen=True)
class Series:
    """Which sessions measure the same thing (docs/session-format.md, `series`): equal `key`s
    group sessions into one series; `text` says it in one line, `parts` is what the key hashes."""

    key: str
    text: str
    parts: Mapping[str, Any] = field(compare=False, hash=False)

    @classmethod
    def of(cls, session: Mapping[str, Any]) -> Series | None:
        series = session.get("series")
        if not isinstance(series, Mapping) or not isinstance(series.get("key"), str):
            return None
        return cls(str(series["key"]), str(series.get("text") or ""), freeze(series.get("parts")))
