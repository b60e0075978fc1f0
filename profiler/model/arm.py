"""A session's arm, typed and read-only: its rows, graph breaks, recompiles, error and the
places TorchDynamo fell back to eager. Built from session.json's dicts;
missing keys, as old sessions have them, read as None or empty.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from tcprof.profiler.model.artifacts import Artifact
from tcprof.profiler.model.context import Environment
from tcprof.profiler.model.cudagraphs import CudagraphSkip
from tcprof.profiler.model.figures import Problem
from tcprof.profiler.model.json_values import EMPTY, as_map, freeze, items
from tcprof.profiler.model.json_values import as_float as _float
from tcprof.profiler.model.json_values import as_int as _int
from tcprof.profiler.model.json_values import as_str as _str
from tcprof.profiler.model.loaded import CpuCheck, Loaded
from tcprof.profiler.model.row import Row
from tcprof.profiler.model.script import ScriptArm


def _flag(value: Any) -> bool | None:
    return value if isinstance(value, bool) else None


@dataclass(frozen=True)
class GraphBreak:
    """A distinct graph break (reason, file, line), how often it happened and at which batch
    sizes, with dynamo's explanation and hints."""

    reason: str | None
    explanation: str | None
    hints: tuple[str, ...]
    file: str | None
    line: int | None
    count: int
    batch_sizes: tuple[int, ...]

    @classmethod
    def of(cls, value: Mapping[str, Any]) -> GraphBreak:
        return cls(
            _str(value.get("reason")),
            _str(value.get("explanation")),
            tuple(str(h) for h in value.get("hints") or ()),
            _str(value.get("file")),
            _int(value.get("line")),
            _int(value.get("count")) or 0,
            tuple(b for b in value.get("batch_sizes") or () if isinstance(b, int)),
        )


@dataclass(frozen=True)
class Recompile:
    """A recompile: where (batch size and step), why (the guard that failed), and its cost."""

    batch_size: int | None
    step: int | None
    reason: str | None
    frame: str | None
    file: str | None
    line: int | None
    seconds: float | None
    data: Mapping[str, Any] = field(
        repr=False, compare=False, hash=False, default_factory=lambda: EMPTY
    )
    # when it began and the user's call that reached it (sessions before them have none)
    when: str | None = None  # before_training, evaluation, or None inside a training step
    at_step: int | None = None
    grad_mode: bool | None = None
    site_file: str | None = None
    site_line: int | None = None

    @classmethod
    def of(cls, value: Mapping[str, Any]) -> Recompile:
        return cls(
            _int(value.get("batch_size")),
            _int(value.get("step")),
            _str(value.get("reason")),
            _str(value.get("frame")),
            _str(value.get("file")),
            _int(value.get("line")),
            _float(value.get("seconds")),
            freeze(value),
            _str(value.get("when")),
            _int(value.get("at_step")),
            _flag(value.get("grad_mode")),
            _str(value.get("site_file")),
            _int(value.get("site_line")),
        )


@dataclass(frozen=True)
class Advice:
    """What tcprof advises about an arm's recompiles (analysis/advice.py, saved with the arm):
    its kind, the cause in the user's words, the fix, and the option `--apply-advice` would try
    (None: none to try); `evidence` as saved."""

    kind: str | None
    message: str | None
    fix: str | None
    apply: str | None
    evidence: Mapping[str, Any] = field(repr=False, compare=False, hash=False)
    where: tuple[str, ...] = ()  # the evidence's places in the user's code, as said

    @classmethod
    def of(cls, value: Mapping[str, Any]) -> Advice:
        evidence = as_map(value.get("evidence"))
        return cls(
            _str(value.get("kind")),
            _str(value.get("message")),
            _str(value.get("fix")),
            _str(value.get("apply")),
            evidence,
            tuple(str(w) for w in evidence.get("where") or ()),
        )


@dataclass(frozen=True)
class Fallback:
    """A frame TorchDynamo ran eagerly instead (at a batch size and step), why, and where."""

    batch_size: int | None
    step: int | None
    frame: str | None
    reason: str | None
    file: str | None
    line: int | None

    @classmethod
    def of(cls, value: Mapping[str, Any]) -> Fallback:
        return cls(
            _int(value.get("batch_size")),
            _int(value.get("step")),
            _str(value.get("frame")),
            _str(value.get("reason")),
            _str(value.get("file")),
            _int(value.get("line")),
        )


@dataclass(frozen=True)
class Interpreter:
    """The Python an arm's workers ran (`python=PATH`, or the engine's own): its path and the
    Python, torch and triton versions it reported."""

    path: str | None
    version: str | None
    torch: str | None
    triton: str | None

    @classmethod
    def of(cls, value: Any) -> Interpreter | None:
        if not isinstance(value, Mapping):
            return None
        return cls(
            _str(value.get("path")),
            _str(value.get("version")),
            _str(value.get("torch")),
            _str(value.get("triton")),
        )


@dataclass(frozen=True)
class Explain:
    """torch._dynamo.explain's pre-pass on an arm (at one batch size): how many graphs, graph
    breaks and ops it found, and its break reasons as saved."""

    batch_size: int | None
    graphs: int | None
    breaks: int | None
    ops: int | None
    break_reasons: tuple[Mapping[str, Any], ...]

    @classmethod
    def of(cls, value: Any) -> Explain | None:
        if not isinstance(value, Mapping):
            return None
        return cls(
            _int(value.get("batch_size")),
            _int(value.get("graph_count")),
            _int(value.get("graph_break_count")),
            _int(value.get("op_count")),
            tuple(freeze(r) for r in items(value.get("break_reasons"))),
        )


@dataclass(frozen=True)
class Arm:
    """One arm: eager, or torch.compile with a backend and options; its rows in batch-size
    order, its graph breaks and recompiles, its error, and (a compiled arm) its verdict
    sentence. `control_of`: an A/A control's twin."""

    index: int
    name: str
    backend: str
    compiled: bool
    rows: tuple[Row, ...]
    graph_breaks: tuple[GraphBreak, ...]
    recompiles: tuple[Recompile, ...]
    error: Problem | None
    verdict: str | None
    control_of: str | None
    options: Mapping[str, Any] = field(compare=False, hash=False)
    data: Mapping[str, Any] = field(repr=False, compare=False, hash=False)
    mode: str | None = None  # torch.compile's options, typed
    dynamic: bool | None = None
    fullgraph: bool | None = None
    fallbacks: tuple[Fallback, ...] = ()
    environment: Environment | None = None  # its own interpreter's (schema 4, `python=`)
    interpreter: Interpreter | None = None
    world_size: int | None = None
    pid: int | None = None
    advice: tuple[Advice, ...] = ()
    explain: Explain | None = None  # the explain pre-pass (--explain)
    artifacts: tuple[Artifact, ...] = ()  # the files it left: its trained weights
    loaded: Loaded | None = None  # what its worker loaded (arms[].model)
    cudagraph_skips: tuple[CudagraphSkip, ...] = ()  # CUDA graphs its mode asked for, skipped
    script: ScriptArm | None = None  # a script's: what its first round did, the files it wrote

    @classmethod
    def of(cls, arm: Mapping[str, Any], baseline: bool, verdict: str | None) -> Arm:
        name = str(arm.get("name"))
        results = [r for r in items(arm.get("results")) if isinstance(r.get("batch_size"), int)]
        twins = {r.get("aa_of") for r in results} - {None}
        options = arm.get("options") or {}
        env = arm.get("environment")
        return cls(
            index=_int(arm.get("index")) or 0,
            name=name,
            backend=str(arm.get("backend") or "eager"),
            compiled=arm.get("backend") not in (None, "eager"),
            rows=tuple(Row.of(name, r, baseline) for r in results),
            graph_breaks=tuple(GraphBreak.of(g) for g in items(arm.get("graph_breaks"))),
            recompiles=tuple(Recompile.of(r) for r in items(arm.get("recompiles"))),
            error=Problem.of(arm.get("error")),
            verdict=verdict,
            control_of=str(next(iter(twins))) if twins else None,
            options=freeze(options),
            data=freeze(arm),
            mode=_str(options.get("mode")),
            dynamic=_flag(options.get("dynamic")),
            fullgraph=_flag(options.get("fullgraph")),
            fallbacks=tuple(Fallback.of(f) for f in items(arm.get("fallbacks"))),
            environment=Environment.of(env) if isinstance(env, Mapping) else None,
            interpreter=Interpreter.of(arm.get("python")),
            world_size=_int(arm.get("world_size")),
            pid=_int(arm.get("pid")),
            advice=tuple(Advice.of(item) for item in items(arm.get("advice"))),
            explain=Explain.of(arm.get("explain")),
            artifacts=tuple(Artifact.of(a) for a in items(arm.get("artifacts"))),
            loaded=Loaded.of(arm.get("model")),
            cudagraph_skips=tuple(CudagraphSkip.of(s) for s in items(arm.get("cudagraph_skips"))),
            script=ScriptArm.of(arm.get("script")),
        )

    @property
    def cpu_check(self) -> CpuCheck | None:
        """Inductor's CPU check in its process (`loaded.cpu_check`; None: none ran)."""
        return self.loaded.cpu_check if self.loaded is not None else None

    @property
    def cudagraph_skipped(self) -> tuple[int, ...]:
        """The batch sizes its CUDA graphs were skipped at (of `cudagraph_skips`)."""
        return tuple(s.batch_size for s in self.cudagraph_skips if s.batch_size is not None)

    def row(self, batch_size: int) -> Row:
        """This arm's row at `batch_size` (KeyError naming the batch sizes it has)."""
        for row in self.rows:
            if row.batch_size == batch_size:
                return row
        sizes = ", ".join(str(r.batch_size) for r in self.rows) or "none"
        raise KeyError(f"{self.name} has no row at batch size {batch_size} (it has: {sizes})")
