"""How long a run will take, before it starts and while it runs (Qt-free, torch-free).

Before Run: the schedule (profiler/run/runner.py) priced per unit. Each round starts one worker
process per arm; each arm at each batch size takes a first step (a compiled arm's compile:
cold in the first round, warm after), warm-up steps and measured blocks (a block lasts at least
`min_block_ms`); the untimed accuracy pass starts one more process per compiled arm. The
prices come from earlier sessions of the same model (same file and class or factory) in the
sessions folder: compile seconds and step times per arm (by label, else by backend) and batch
size, and the run's own costs (worker start-up, each block's quiet-machine wait) from the wall
time the steps and compiles leave unexplained. Without history they are
guesses, and the estimate says "rough: no earlier run of this model": a figure is never
presented as measured when it is not. The guesses rest on what the window's inspection saw of
the model (worker/step_probe.py): its eager step timed at two small batch sizes, the operators
one training step dispatches, which a compile's cost grows with, the time its file took to load,
and the machine's pace now (a compile and a worker's start-up are Python-bound, and a busy
stretch of a shared machine runs them at half speed); and on what torch will compile: under dynamic=None
the second batch size compiles once more with dynamic shapes and later sizes reuse it, under
dynamic=False each size compiles, and a warm cache's compile is a fraction of the cold one.

While it runs, profiler/run/time_left.py takes each unit's price off as its event arrives.
"""

from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass, field
from typing import Any

from tcprof.profiler.analysis import stopping
from tcprof.profiler.config import MIN_BLOCK_MS, arms_of
from tcprof.profiler.protocol import units
from tcprof.profiler.protocol.types import Json
from tcprof.profiler.run.cache_plan import PORTABLE_MIN_ROUNDS

# Guesses for a model never run before (bench/estimate_error.py measures how far they are): a
# cold compile costs a fixed part plus a part per operator one training step dispatches (the
# inspection's probe counts them), at the pace the probe read. Fitted to the built-in examples'
# cold compiles on two quiet stretches (docs/benchmarks.md, "... the estimate at the machine's
# pace", seventh sitting).
COMPILE_GUESS = {"aot_eager": (0.5, 0.01), "inductor": (1.0, 0.05)}  # (s, s per operator)
OTHER_COMPILE_GUESS = COMPILE_GUESS["inductor"]  # a backend tcprof does not know
OPS_PER_MODULE = 8.0  # operators per leaf module, where the probe counted none (the examples: 6-20)
DEFAULT_MODULES = 20  # leaf modules, where the inspection saw none
DEFAULT_COMPILE_S = {  # the guess for a model of DEFAULT_MODULES leaf modules
    name: base + per * OPS_PER_MODULE * DEFAULT_MODULES
    for name, (base, per) in COMPILE_GUESS.items()
}
# The machine's pace: the probe's fixed torch.fx trace (worker/step_probe.py's pace_ms) took this
# long on the quiet stretch the guesses were fitted on; a slower reading scales what is
# Python-bound (a compile, a worker's start-up) by its ratio, within PACE_RANGE.
REFERENCE_PACE_MS = 3.0
PACE_RANGE = (0.5, 4.0)
WORKER_START_S = 2.0  # a worker started and ready for its model, at the reference pace
WARM_COMPILE_SHARE = 0.1  # a warm cache's compile, as a share of the cold one (no history)
# --portable-round's compile, of a cold one: 0.65, 0.7 and 0.9 on the CPU (nanoGPT shape, simple,
# mlp; quiet runs of 2026-12-06): the artifacts carry the graphs, not the C++ kernels
PORTABLE_COMPILE_SHARE = 0.7
RECOMPILE_SHARE = {None: 0.5, False: 0.8, True: 0.05}  # the 2nd size's compile, by dynamic=
ACCURACY_COMPILE_SHARE = 0.3  # the accuracy process's compiles (float64 ones cold), of a cold
LATER_SIZE_SHARE = {None: 0.05, False: 0.8, True: 0.05}  # the 3rd and later sizes'
DEFAULT_STEP_MS = 10.0
# The run's own costs besides the model's steps, in units of `overhead_s`: starting a worker
# (import torch, build the model) weighs PROCESS_WEIGHT; a measured block (waiting for a quiet
# machine, starting and ending it) or a batch size's first step and finishing passes one.
# Measured on a quiet machine (docs/benchmarks.md, "Default runs on a quiet machine after the
# third sitting" and "The estimate after the frozen heap"): a worker's start-up 3.3 s (26.2 s
# for 8), a block's own cost 0.09 s (quiet-machine wait 57 ms, random wait 25 ms, the rest
# 3-4 ms since the heap stays frozen between blocks; 0.4 s before), an exit 0.04 s.
PROCESS_WEIGHT = 33.0
EXIT_WEIGHT = 0.4  # a worker's last passes (weights, cache artifacts) and its exit
DEFAULT_OVERHEAD_S = 0.1  # a worker's start-up 3.3 s, a block 0.1 s, where no history says
OVERHEAD_S_RANGE = (0.05, 60.0)
HISTORY_RUNS = 5  # the newest sessions of the model read for prices
ACCURACY_STEP_FACTOR = 8.0  # the accuracy check: 2 steps each of eager twice, float64, the arm

ACCURACY = "accuracy"  # the replicate of the untimed accuracy pass's events


@dataclass
class Prices:
    """What a unit of a run costs: per (arm key, batch size), seconds or milliseconds."""

    compile_s: dict[tuple[str, int], float] = field(default_factory=dict)
    warm_compile_s: dict[tuple[str, int], float] = field(default_factory=dict)
    step_ms: dict[tuple[str, int], float] = field(default_factory=dict)
    overhead_s: float = DEFAULT_OVERHEAD_S  # seconds per unit of the run's own costs
    runs: int = 0  # earlier sessions these come from (0: guesses)
    model: str = ""
    probe_ms: dict[int, float] = field(default_factory=dict)  # eager step ms at small sizes
    modules: int | None = None  # the model's leaf modules (the inspection's)
    ops: int | None = None  # operators one training step dispatches (the inspection's)
    pace_ms: float | None = None  # the probe's reading of the machine's pace
    load_s: float | None = None  # the model file imported and the model built (the inspection's)

    def with_probe(self, probe: Json | None) -> Prices:
        """These prices with the inspection's step probe (worker/step_probe.py) for guesses."""
        if not isinstance(probe, dict):
            return self
        sizes = probe.get("ms_at")
        sizes = sizes if isinstance(sizes, dict) else {}
        ms = {int(b): float(v) for b, v in sizes.items() if nonnegative(v) is not None}
        modules, ops = probe.get("modules"), probe.get("ops")
        pace = nonnegative(probe.get("pace_ms"))
        return dataclasses.replace(
            self,
            probe_ms=ms,
            modules=modules if _count(modules) else self.modules,
            ops=ops if _count(ops) else self.ops,
            pace_ms=pace if pace else self.pace_ms,
            load_s=nonnegative(probe.get("load_s")),
        )

    def pace(self) -> float:
        """How much slower than the guesses' reference this machine runs Python-bound work now
        (1.0 where the probe did not read it)."""
        if not self.pace_ms:
            return 1.0
        low, high = PACE_RANGE
        return min(high, max(low, self.pace_ms / REFERENCE_PACE_MS))

    def process(self) -> float:
        """A worker's start-up: from history, the run's own cost; without it, a fresh worker's
        at the machine's pace plus the model's load as the inspection timed it."""
        if self.runs or self.load_s is None:
            return PROCESS_WEIGHT * self.overhead_s
        return self.pace() * WORKER_START_S + self.load_s

    def _probe_step(self, bs: int) -> float | None:
        """The eager step at `bs`, a fixed cost plus a cost per sample fitted to the probe."""
        if not self.probe_ms:
            return None
        sizes = sorted(self.probe_ms)
        if len(sizes) == 1:
            return self.probe_ms[sizes[0]] * max(1.0, bs / sizes[0])
        (b0, m0), (b1, m1) = (
            (sizes[0], self.probe_ms[sizes[0]]),
            (sizes[-1], self.probe_ms[sizes[-1]]),
        )
        per = max(0.0, (m1 - m0) / (b1 - b0))
        return max(m0 - per * b0, 0.0) + per * bs

    @staticmethod
    def _lookup(
        table: dict[tuple[str, int], float], keys: tuple[str, ...], bs: int
    ) -> tuple[float, int] | None:
        """(value, the batch size it was measured at): this size, else the nearest one."""
        for key in keys:
            if (key, bs) in table:
                return table[(key, bs)], bs
        for key in keys:
            sizes = [b for k, b in table if k == key]
            if sizes:
                near = min(sizes, key=lambda b: abs(math.log(b / bs)))
                return table[(key, near)], near
        return None

    def step(self, keys: tuple[str, ...], bs: int) -> float:
        """Milliseconds per step; from another batch size, scaled with the batch; without
        history, the probe's eager step (a compiled step is priced as eager's) at the machine's
        pace: the probe keeps the fastest of its steps, the machine's best moments, and a run
        pays its share of the machine."""
        found = self._lookup(self.step_ms, keys, bs)
        if found is not None:
            return found[0] * bs / found[1]
        probed = self._probe_step(bs)
        return DEFAULT_STEP_MS if probed is None else probed * self.pace()

    def compile(
        self,
        keys: tuple[str, ...],
        backend: str,
        bs: int,
        warm: bool,
        nth: int = 0,
        dynamic: bool | None = None,
    ) -> float:
        """A first step's compile at the `nth` batch size of the run (0: the first)."""
        if backend == "eager":
            return 0.0
        found = self._lookup(self.warm_compile_s if warm else self.compile_s, keys, bs)
        if found is not None:  # measured: at this size, else at the nearest one
            return found[0]
        if warm:
            cold = self.compile(keys, backend, bs, warm=False, nth=nth, dynamic=dynamic)
            return cold * WARM_COMPILE_SHARE
        base, per = COMPILE_GUESS.get(backend, OTHER_COMPILE_GUESS)
        ops = self.ops
        if ops is None:
            modules = self.modules if self.modules is not None else DEFAULT_MODULES
            ops = round(OPS_PER_MODULE * modules)
        first = self.pace() * (base + per * ops)
        if nth == 0:
            return first
        shares = RECOMPILE_SHARE if nth == 1 else LATER_SIZE_SHARE
        return first * shares.get(dynamic, 1.0)


@dataclass(frozen=True)
class Unit:
    """One priced piece of the schedule: a first step or a block, as progress counts them."""

    kind: str  # process | first_step | block | exit | accuracy (each as its event marks it)
    arm: int
    batch_size: int | None
    replicate: int | str
    seconds: float


def plan(config: Json, prices: Prices) -> list[Unit]:
    """The run's units in schedule order, each with its price."""
    arms = arms_of(config)
    sizes = [b for b in config.get("batch_sizes") or [] if isinstance(b, int) and b > 0]
    steps = max(1, int(config.get("steps") or 1))
    warmup = max(0, int(config.get("warmup") or 0))
    blocks = max(1, min(int(config.get("blocks") or 1), steps))
    rounds = max(1, int(config.get("replicates") or 1))
    portable = (
        config.get("portable_round")
        and rounds >= PORTABLE_MIN_ROUNDS
        and not config.get("warm_cache")
    )
    min_block_s = float(config.get("min_block_ms") or MIN_BLOCK_MS) / 1000.0
    per_block = [steps // blocks + (1 if i < steps % blocks else 0) for i in range(blocks)]
    over = prices.overhead_s
    units: list[Unit] = []
    for rep in range(rounds):
        # per arm: [process, then per size [first step, blocks...], exit]
        lanes = []
        for i, arm in enumerate(arms):
            keys = (arm.name, arm.backend)
            sized = []
            for nth, bs in enumerate(sizes):
                step_s = prices.step(keys, bs) / 1000.0
                first = prices.compile(
                    keys, arm.backend, bs, warm=rep > 0, nth=nth, dynamic=arm.dynamic
                )
                if portable and rep == 1 and arm.compiled:
                    first = PORTABLE_COMPILE_SHARE * prices.compile(
                        keys, arm.backend, bs, warm=False, nth=nth, dynamic=arm.dynamic
                    )
                first += step_s
                sized.append(
                    [Unit("first_step", i, bs, rep, first + warmup * step_s + over)]
                    + [
                        Unit("block", i, bs, rep, max(n * step_s, min_block_s) + over)
                        for n in per_block
                    ]
                )
            process = Unit("process", i, None, rep, prices.process())
            lanes.append((process, sized, Unit("exit", i, None, rep, EXIT_WEIGHT * over)))
        units += _schedule_order(lanes, bool(config.get("sequential")))
    if config.get("accuracy", True):
        for i, arm in enumerate(arms):
            if not arm.compiled:
                continue
            keys = (arm.name, arm.backend)
            units.append(Unit("process", i, None, ACCURACY, prices.process()))
            for nth, bs in enumerate(sizes):
                cold = prices.compile(
                    keys, arm.backend, bs, warm=False, nth=nth, dynamic=arm.dynamic
                )
                check = cold * ACCURACY_COMPILE_SHARE
                check += ACCURACY_STEP_FACTOR * prices.step(keys, bs) / 1000.0
                units.append(Unit("accuracy", i, bs, ACCURACY, check + over))
            units.append(Unit("exit", i, None, ACCURACY, EXIT_WEIGHT * over))
    return units


def _schedule_order(
    lanes: list[tuple[Unit, list[list[Unit]], Unit]], sequential: bool
) -> list[Unit]:
    """One round's units in the order they happen: one arm after another (sequential), or
    every arm loading, then per batch size every first step before the arms' blocks take
    turns (runner.py's interleaved round)."""
    if sequential:
        return [u for process, sized, exit_ in lanes for u in [process, *sum(sized, []), exit_]]
    out = [process for process, _sized, _exit in lanes]
    for s in range(len(lanes[0][1]) if lanes else 0):
        sized = [lane[1][s] for lane in lanes]
        out += [lane_units[0] for lane_units in sized]
        for b in range(1, max(len(lane_units) for lane_units in sized)):
            out += [lane_units[b] for lane_units in sized if b < len(lane_units)]
    return out + [exit_ for _process, _sized, exit_ in lanes]


@dataclass(frozen=True)
class Estimate:
    seconds: float
    basis: str  # what the figure rests on, in words
    measured: bool  # False: guesses per backend (no earlier run of this model)
    units: tuple[Unit, ...] = ()
    # a run that stops when settled: `seconds` if it settles at its first look, this at most
    most_seconds: float | None = None
    budgeted: bool = False  # most_seconds is held down by the run's budget

    def text(self) -> str:
        """'about 1 min 40 s; based on 2 earlier runs of model.py'; a run that stops when
        settled: 'about 30 s, at most 1 min 20 s with the budget; ...'."""
        most = ""
        if self.most_seconds is not None and self.most_seconds > self.seconds:
            most = f", at most {units.duration(self.most_seconds)}"
            most += " with the budget" if self.budgeted else ""
        return f"about {units.duration(self.seconds)}{most}; {self.basis}"


def _range(config: Json, prices: Prices, whole: list[Unit]) -> tuple[list[Unit], float, bool]:
    """A run that stops when settled (stop_early): the units if it settles at its first look
    (its usual end), the seconds it takes at most (its last look, or its budget plus what
    follows the rounds: the budget stops rounds only, at a balanced point, never the first
    look) and whether the budget holds that down."""
    total = sum(u.seconds for u in whole)
    planned = stopping.looks(len(arms_of(config)), int(config.get("replicates") or 1))
    likely = plan({**config, "replicates": planned[0]}, prices)
    first = sum(u.seconds for u in likely)
    budget = config.get("budget_s")
    if not isinstance(budget, (int, float)) or budget <= 0:
        return likely, total, False
    rounds_s = sum(u.seconds for u in whole if u.replicate != ACCURACY)
    most = max(first, min(total, float(budget) + total - rounds_s))
    return likely, most, most < total


def estimate(config: Json, prices: Prices) -> Estimate:
    units = plan(config, prices)
    most, budgeted = None, False
    if config.get("stop_early"):
        units, most, budgeted = _range(config, prices, units)
    total = sum(u.seconds for u in units)
    if prices.runs:
        runs = "1 earlier run" if prices.runs == 1 else f"{prices.runs} earlier runs"
        basis = f"based on {runs} of {prices.model}"
    else:
        basis = "rough: no earlier run of this model"
    extras = []
    if config.get("apply_advice"):
        extras.append("applying advice may re-run arms after")
    if basis.startswith("based") and _unpriced(config, prices):
        extras.append("some arms or batch sizes guessed")
    if extras:
        basis += " (" + "; ".join(extras) + ")"
    return Estimate(total, basis, bool(prices.runs), tuple(units), most, budgeted)


def _unpriced(config: Json, prices: Prices) -> bool:
    """Whether an arm of the run has no step time from history at any batch size."""
    priced = {k for k, _bs in prices.step_ms}
    return any(a.name not in priced and a.backend not in priced for a in arms_of(config))


def _count(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value >= 0


def nonnegative(value: Any) -> float | None:
    """A finite number at or above zero, as a float; None for anything else."""
    ok = isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)
    return float(value) if ok and value >= 0 else None
