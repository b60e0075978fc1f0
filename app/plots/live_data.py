"""The numbers behind the live plots: each arm's buffers (arm_trace.py), fed from run events.

Kept free of Qt so it is cheap to test and so the plots can pull from it on a timer instead of
redrawing per event. Only the GUI thread touches it (RunController applies drained events, the
plots read), so it needs no lock. Each point has three coordinates (series.py): its place in
"all batch sizes in a row", its step within its section, its wall-clock time; where those are
is the layout's (section_layout.py), which `LiveData` extends.

Events of the untimed accuracy pass are not plotted. Compiles become markers and contended
blocks spans (marks.py); `phase` events say which arm waits on a compile (`waits`).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from tcprof.app.plots.arm_trace import ArmTrace
from tcprof.app.plots.live_events import (
    ArmsAdded,
    BlockDone,
    Compile,
    Memory,
    Phase,
    Steps,
    Summary,
    Where,
    parse,
)
from tcprof.app.plots.marks import Contended, Marker, compile_marker, marker_text
from tcprof.app.plots.section_layout import SectionLayout
from tcprof.app.plots.series import Section
from tcprof.profiler.config.script import WORK_UNITS, ScriptSource
from tcprof.profiler.model.row import Row
from tcprof.profiler.model.session import SessionModel
from tcprof.profiler.protocol.event_text import phase_words
from tcprof.profiler.report.palette import is_eager

if TYPE_CHECKING:
    from tcprof.profiler.config.model import RunConfig

# Phases during which an arm shows nothing on the plots (no step data yet): their time is shown.
WAIT_PHASES = {
    "loading": "loading",
    "compiling": "compiling",
    "first_step": "first step of",
}


@dataclass
class Wait:
    """An arm waiting in a phase that plots nothing yet (a compile): since when, doing what."""

    arm: int
    text: str  # "compiling inductor · bs 16" (a script's sweep value, or nothing)
    elapsed_s: float
    t0: float | None  # the run's time it began (s), when its event had one


class LiveData(SectionLayout):
    """Folds `steps`, `memory`, `compile` and `phase` events of one run into plottable
    buffers, placed by its layout (section_layout.py)."""

    def __init__(
        self,
        arm_names: list[str],
        batch_sizes: list[int],
        warmup: int,
        steps: int,
        replicates: int = 1,
        device: str | None = None,
        eager: list[bool] | None = None,
        clock: Callable[[], float] = time.monotonic,
    ):
        super().__init__(batch_sizes, warmup, steps, replicates, clock)
        flags = eager if eager is not None else [is_eager(n) for n in arm_names]
        self.arms = [ArmTrace(n, eager=e) for n, e in zip(arm_names, flags, strict=False)]
        self.device = device  # what the memory plot's title names (None: decided by the data)
        self.points = 0
        # The compile cost of each (arm, batch size), once a summary says it (round 1's).
        self.compile_costs: dict[tuple[int, int], float] = {}
        # What throughput counts: a model file's samples (its batch size per step); a
        # script's `--unit`, else tokens where its steps carry them, else samples (as
        # session/script_rows.py decides its figures), fixed by its first steps.
        self.unit: str | None = "samples"

    @classmethod
    def from_config(cls, config: RunConfig) -> LiveData:
        data = cls(
            [a.name for a in config.run_arms],
            list(config.batch_sizes),
            config.warmup,
            config.steps,
            config.replicates,
            device=config.device,
            eager=[is_eager(a.backend) for a in config.run_arms],
        )
        data.set_script(getattr(config, "script", None))
        return data

    @classmethod
    def from_session(cls, model: SessionModel, events: Sequence[Mapping[str, Any]]) -> LiveData:
        """The buffers of a saved session, filled from its events (as they were on the wire)
        as a live run fills them."""
        plan = model.options
        data = cls(
            [a.name for a in model.arms],
            list(model.batch_sizes),
            plan.warmup or 0,
            plan.steps or 0,
            plan.replicates or 1,
            device=plan.device,
            eager=[is_eager(a.backend) for a in model.arms],
        )
        data.set_script(plan.script)
        for event in events:
            data.apply(event)
        data.set_compile_costs(model)
        return data

    def set_script(self, script: ScriptSource | None) -> None:
        """A training script's run (`script`: its source; None: a model file)."""
        self.script = script is not None
        self.script_source = script
        if script is not None:
            given = getattr(script, "unit", None)  # a script given without a unit: as its steps
            self.unit = given if given in WORK_UNITS else None

    @property
    def work_unit(self) -> str:
        """What the throughput plot counts per second: samples, tokens or steps."""
        return self.unit or "samples"

    def uses_cuda(self) -> bool:
        """Whether the memory plot shows CUDA memory: the run's device, or (a session whose
        config does not say) CUDA figures in its data."""
        if self.device is not None:
            return self.device.startswith("cuda")
        return any(t.cuda_alloc_mb.n or t.cuda_reserved_mb.n for t in self.arms)

    def value_at(self, arm: int, key: str, x: float, within: float) -> float | None:
        """Arm `arm`'s `key` series at step x: the last point at or before x, if it is no more
        than `within` steps before (the crosshair's readout)."""
        xs, ys = self.arms[arm].series()[key].data()
        i = int(np.searchsorted(xs, x, side="right")) - 1
        if i < 0 or x - xs[i] > within or not np.isfinite(ys[i]):
            return None
        return float(ys[i])

    def waits(self) -> list[Wait]:
        """The arms in a phase that draws nothing yet (loading, compiling, a first step)."""
        now = self.clock()
        out = []
        for i, trace in enumerate(self.arms):
            verb = WAIT_PHASES.get(str(trace.phase))
            if verb is None:
                continue
            words = phase_words(trace.phase_batch_size, self.script_source)
            where = f" · {words}" if words else ""
            out.append(
                Wait(i, f"{verb} {trace.name}{where}", now - trace.phase_since, trace.phase_t)
            )
        return out

    def set_compile_costs(self, session: SessionModel) -> None:
        """Each arm and batch size's compile cost from a session summary, so that compile
        markers can say their share of it."""
        costs = {}
        for i, arm in enumerate(session.arms):
            for row in arm.rows:
                cost = _compile_cost(row)
                if cost is not None and cost > 0:
                    costs[(i, row.batch_size)] = cost
        if costs == self.compile_costs:
            return
        self.compile_costs = costs
        for i, trace in enumerate(self.arms):
            for marker in trace.markers:
                marker.text = self._marker_text(i, marker)
            trace.markers_version += 1

    def _trace(self, where: Where) -> ArmTrace | None:
        idx = where.arm
        if idx is not None and 0 <= idx < len(self.arms):
            return self.arms[idx]
        return None

    def apply(self, raw: Mapping[str, Any]) -> None:
        """Fold one run event (raw JSON, parsed here once: live_events.py) into the buffers."""
        event = parse(raw)
        if isinstance(event, ArmsAdded):  # --apply-advice: the fixed arms join the plots
            self.arms += [ArmTrace(a.label, eager=is_eager(a.backend)) for a in event.arms]
            return
        if isinstance(event, Summary):  # the application's live summary: compile costs
            self.set_compile_costs(event.session)
            return
        if event is None:
            return
        trace = self._trace(event.where)
        if trace is None:
            return
        if isinstance(event, Phase):
            self._on_phase(trace, event)
            return
        placed = self._offset(event.where)
        if placed is None:
            return
        offset, section = placed
        t = self._time(event.where)
        if isinstance(event, Steps):
            self._on_steps(trace, event, offset, section, t)
        elif isinstance(event, Memory):
            step = event.step
            x = float(offset + step)
            for series, value in (
                (trace.rss_mb, event.rss_mb),
                (trace.cuda_alloc_mb, event.cuda_alloc_mb),
                (trace.cuda_reserved_mb, event.cuda_reserved_mb),
            ):
                if value is not None:
                    series.append(x, value, t, section)
            self._reach(int(x), section, step)
        elif isinstance(event, BlockDone):
            self._on_block_done(trace, event, offset, section, t)
        else:
            self._on_compile(trace, event, offset, section, t)

    def _on_steps(
        self, trace: ArmTrace, event: Steps, offset: int, section: Section, t: float | None
    ) -> None:
        ms = event.ms
        if len(ms) == 0:
            return
        start = event.start
        x0 = offset + start
        if trace.section != section:
            if trace.section is not None:  # the break ends the section before
                trace.add_gap(x0 - 0.5)
            trace.section = section
        elif start > trace.next_start:  # a skipped step: the next block or phase
            trace.add_gap(x0 - 0.5)
        trace.next_start = start + len(ms)
        if trace.phase in WAIT_PHASES:
            trace.phase = "steps"
        block = event.block
        if block is not None and (section, block) not in trace._block_start:
            began = None if t is None else t - float(np.sum(ms)) / 1000.0
            trace._block_start[(section, block)] = (start, began)
        trace.add_steps(x0, ms, self._work(event, len(ms)), t)
        if event.scripted:
            trace.add_script(x0, list(ms), event.loss, event.own_ms, t)
        fastest = event.ms_fastest
        if fastest:
            trace.add_spread(x0, list(ms), fastest)
        self.points += len(ms)
        self._reach(x0 + len(ms) - 1, section, start + len(ms) - 1)

    def _on_block_done(
        self,
        trace: ArmTrace,
        event: BlockDone,
        offset: int,
        section: Section,
        t: float | None,
    ) -> None:
        """A contended block becomes a span over its steps (from its first steps event)."""
        if not event.contended:
            return
        steps = event.steps
        block = event.block
        first = trace._block_start.get((section, block)) if block is not None else None
        step1 = trace.next_start - 1 if trace.section == section else None
        if first is None or step1 is None or steps <= 0:
            return  # its steps never came (a stopped run): nothing to shade
        step0, t0 = first
        trace.contended.append(
            Contended(
                section=section,
                step0=step0,
                step1=max(step0, step1),
                x0=float(offset + step0),
                x1=float(offset + max(step0, step1)),
                t0=t0,
                t1=t,
                busy_elsewhere=event.busy_elsewhere,
            )
        )
        trace.contended_version += 1

    def _on_phase(self, trace: ArmTrace, event: Phase) -> None:
        if event.where.untimed:
            return  # the untimed accuracy pass
        t = self._time(event.where)
        if event.phase is not None:
            trace.phase = event.phase
            trace.phase_batch_size = event.where.batch_size
            trace.phase_since = self.clock()
            trace.phase_t = t
        else:  # its first step came, or its process ended: no longer waiting
            trace.phase = "first_step_done" if event.first_step else None

    def _on_compile(
        self,
        trace: ArmTrace,
        event: Compile,
        offset: int,
        section: Section,
        t: float | None,
    ) -> None:
        marker = compile_marker(event, offset, section, t, trace.markers)
        marker.text = self._marker_text(self.arms.index(trace), marker)
        trace.markers.append(marker)
        trace.markers_version += 1

    def _marker_text(self, arm: int, marker: Marker) -> str:
        rep, bs = marker.section or (0, 0)
        cost = self.compile_costs.get((arm, bs)) if rep == 0 else None
        return marker_text(marker, self.arms[arm].name, self.replicates, cost, self.script_source)

    def _work(self, event: Steps, n: int) -> int | list[float]:
        """Each step's work in the throughput's unit: a script's as its model was given it
        (its steps' `samples` or `tokens`, every micro-batch summed; NaN where none was
        seen; 1 per step for `--unit steps`), a model file's its batch size (a script's phase
        is not its batch: it drew a samples/s of "bs 1")."""
        if not self.script:
            return int(event.where.batch_size or 0)
        if self.unit is None:  # the first steps decide: tokens where they carry them
            self.unit = "tokens" if _any_number(event.tokens) else "samples"
        if self.unit == "steps":
            return [1.0] * n
        values = event.tokens if self.unit == "tokens" else event.samples
        if values is not None and len(values) == n:
            return [float(v) if isinstance(v, (int, float)) else float("nan") for v in values]
        return [float("nan")] * n


def _compile_cost(row: Row) -> float | None:
    """A batch size's compile cost: the cold one, or the only one a session has (as
    protocol/compile_terms.py's compile_figure reads a row)."""
    cost = row.compile
    if cost is None:
        return None
    return cost.cold_s if cost.cold_s is not None else cost.first_s


def _any_number(values: list[Any] | None) -> bool:
    return values is not None and any(isinstance(v, (int, float)) for v in values)
