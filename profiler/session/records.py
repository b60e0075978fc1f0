"""The records a session is made of: per arm (`ArmRecord`), per arm x batch size
(`BatchResult`), and the whole run (`SessionRecord`). Plain state, no derivation: folding events
into them is `fold`, deriving session.json's rows and document is `rows` and `document`.

A run has rounds (replicates), each with a fresh process per arm: events carry `replicate`.
Measured steps are kept per (replicate, block) for the statistics; what TorchDynamo did (compiles,
graph breaks, fallbacks) is taken from the first round only, the later rounds' compiles being
the warm-cache figures; the untimed accuracy pass (replicate "accuracy") only adds its verdicts.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from tcprof.profiler.analysis.timeline import Mark
from tcprof.profiler.config import arms_of, world_size_of

# 3: control is a kind (not a flag), intervals are paired-t centred, schedule and comparisons
# recorded; 4: provenance (git, tcprof), the series key and each arm's own environment
SCHEMA_VERSION = 4
METHOD_SCHEMA = 3  # the last schema that changed how figures are measured (report/compare.py)
ACCURACY_PASS = "accuracy"  # the `replicate` of events from the untimed accuracy process
MAX_LOG_LINES = 20_000


@dataclass
class BatchResult:
    """One arm at one batch size: its first step, warm-up and measured steps (per round and
    block), memory, what TorchDynamo did (compiles, graph breaks, fallbacks, CUDA graph skips),
    the accuracy verdict and, for a distributed arm, each rank's own figures."""

    batch_size: int
    status: str = "running"  # running, ok, error, oom, skipped
    error: dict[str, Any] | None = None
    first_step_ms: float | None = None
    first_loss: float | None = None
    first_grad_norm: float | None = None
    warmup_ms: list[float] = field(default_factory=list)
    ms: list[float] = field(default_factory=list)
    memory: list[list[float | None]] = field(
        default_factory=list
    )  # [step, rss, cuda alloc, cuda reserved]
    compiles: list[dict[str, Any]] = field(default_factory=list)
    graph_break_events: list[dict[str, Any]] = field(default_factory=list)
    fallbacks: list[dict[str, Any]] = field(default_factory=list)
    cudagraph_skips: list[dict[str, Any]] = field(default_factory=list)  # round 0
    warmup_by_rep: dict[int, list[float]] = field(default_factory=dict)  # CUDA graph recording
    done: dict[str, Any] = field(default_factory=dict)  # the worker's bs_done fields (round 0)
    profile: dict[str, Any] | None = None  # the torch.profiler pass: path, top_ops
    block_ms: dict[tuple[int, int], list[float]] = field(default_factory=dict)  # (rep, block)
    blocks: list[dict[str, Any]] = field(default_factory=list)  # block_done: rep, quiet, ...
    first_steps: dict[int, dict[str, Any]] = field(default_factory=dict)  # rep -> first_step
    later_compiles: dict[int, list[dict[str, Any]]] = field(default_factory=dict)  # rep >= 1
    done_by_replicate: dict[int, dict[str, Any]] = field(default_factory=dict)
    accuracy: dict[str, Any] | None = None  # the untimed accuracy check's verdict
    # a distributed arm, per rank: measured samples, first step and bs_done of round 0
    rank_ms: dict[int, list[float]] = field(default_factory=dict)
    rank_first: dict[int, dict[str, Any]] = field(default_factory=dict)
    rank_done: dict[int, dict[str, Any]] = field(default_factory=dict)
    rank_insight: dict[int, list[dict[str, Any]]] = field(default_factory=dict)  # compiles, ...
    # a script (config.script): each measured step's own time and loss, parallel to `ms`;
    # own time per round; round 0's loss by step index (first step, warm-up and measured)
    own_ms: list[float | None] = field(default_factory=list)
    loss: list[float | None] = field(default_factory=list)
    own_by_rep: dict[int, list[float]] = field(default_factory=dict)
    loss_by_step: dict[int, float] = field(default_factory=dict)
    # ... and each measured step's work, as its forwards were given it (None: not seen)
    samples: list[int | None] = field(default_factory=list)
    tokens: list[int | None] = field(default_factory=list)

    def processes(self) -> dict[int, list[list[float]]]:
        """Measured blocks per replicate (process), in block order."""
        out: dict[int, list[list[float]]] = {}
        for (rep, _block), ms in sorted(self.block_ms.items()):
            out.setdefault(rep, []).append(ms)
        if not out and self.ms:  # a schema 1 session: one process, one block
            out[0] = [self.ms]
        return out

    def compiles_of(self, replicate: int) -> list[dict[str, Any]]:
        return self.compiles if replicate == 0 else self.later_compiles.get(replicate, [])


@dataclass
class ArmRecord:
    """One arm of the run: its spec (name, backend, options), how its processes went
    (environment, model, exit, error), its results per batch size, and its artefacts and
    compile caches."""

    index: int
    name: str
    backend: str
    options: dict[str, Any]
    error: dict[str, Any] | None = None
    environment: dict[str, Any] | None = None
    model: dict[str, Any] | None = None
    exit: dict[str, Any] | None = None
    results: dict[int, BatchResult] = field(default_factory=dict)
    phase: str | None = None
    phase_batch_size: int | None = None
    explain: dict[str, Any] | None = None
    artifacts: list[dict[str, Any]] = field(default_factory=list)
    caches: dict[int, str] = field(default_factory=dict)  # replicate -> cold|portable|warm|user
    cache_events: list[dict[str, Any]] = field(default_factory=list)  # artifacts saved / loaded
    world_size: int = 1  # ranks of a distributed arm (torchrun), else 1
    ranks: dict[int, dict[str, Any]] = field(default_factory=dict)  # rank -> node, host, pid
    # a script: what its first round did (the model, what was compiled and where), and the
    # files any of its processes wrote
    script_notes: list[dict[str, Any]] = field(default_factory=list)
    script_files: dict[str, int | None] = field(default_factory=dict)

    def result(self, batch_size: int) -> BatchResult:
        if batch_size not in self.results:
            self.results[batch_size] = BatchResult(batch_size)
        return self.results[batch_size]


class SessionRecord:
    """What a run produced so far: its config, environment, status, arms (each with its
    per-batch-size results), logs, errors and rounds. State only: `fold.SessionFold` folds events
    into it, `rows` and `document` derive session.json from it."""

    def __init__(self, config: dict[str, Any] | None = None) -> None:
        self.schema_version = SCHEMA_VERSION
        self.config: dict[str, Any] = config or {}
        self.arms: list[ArmRecord] = []
        self.environment: dict[str, Any] | None = None
        self.provenance: dict[str, Any] | None = None  # the run_start's (config/provenance.py)
        self.seeding: dict[str, Any] | None = None  # the run_start's (run/draws.py)
        self.status = "running"
        self.started_at: float | None = None
        self.ended_at: float | None = None
        self.logs: list[dict[str, Any]] = []
        self.errors: list[dict[str, Any]] = []
        self.rounds: list[dict[str, Any]] = []
        self.marks: list[Mark] = []  # the timeline's events, small (analysis/timeline)
        self.stopping: dict[str, Any] | None = None  # why a run that stops when settled stopped
        if config:
            self._init_arms(config)

    def _init_arms(self, config: dict[str, Any]) -> None:
        self.arms = [
            ArmRecord(
                i, spec.name, spec.backend, spec.options(), world_size=world_size_of(config, spec)
            )
            for i, spec in enumerate(arms_of(config))
        ]

    # -- accessors ----------------------------------------------------------------------------
    @property
    def baseline(self) -> ArmRecord | None:
        return self.arms[0] if self.arms else None

    def batch_sizes(self) -> list[int]:
        return list(self.config.get("batch_sizes", []))

    def ordered_batch_sizes(self, arm: ArmRecord) -> list[int]:
        order = self.batch_sizes()
        return sorted(arm.results, key=lambda b: order.index(b) if b in order else len(order) + b)
