"""The backend ladder: which stage of the compiler costs speed, memory or accuracy.

torch.compile is a pipeline: TorchDynamo captures the graph (`backend="eager"` runs it as
captured), AOTAutograd traces the backward (`aot_eager`), decomposes and partitions it
(`aot_eager_decomp_partition`), and Inductor generates code (`inductor`). Running each stage as
an arm on the same model shows what each one adds; the first stage whose accuracy check fails is
where a divergence starts, and that decides which minifier can shrink it.

A stage whose compiled code never ran (every frame fell back to eager: the recompile limit, a
compile that failed under suppress_errors) compared eager with eager: its accuracy says nothing
of the compiler, so it reads "fell back" and is never the first divergence, and a ladder whose
every stage fell back says so instead of "every stage matched".
"""

from __future__ import annotations

from typing import Any

from tcprof.profiler.config import DYNAMO_EAGER, ArmSpec, ConfigError, arms_of
from tcprof.profiler.model.arm import Arm
from tcprof.profiler.model.json_values import thaw
from tcprof.profiler.model.ladder import LadderStage, StageFigures
from tcprof.profiler.model.row import Row
from tcprof.profiler.model.session import SessionModel

DEFAULT_STAGES = ("eager", DYNAMO_EAGER, "aot_eager", "aot_eager_decomp_partition", "inductor")
STAGE_TEXT = {
    DYNAMO_EAGER: "TorchDynamo capture (torch.compile backend='eager')",
    "aot_eager": "+ AOTAutograd (forward and backward traced)",
    "aot_eager_decomp_partition": "+ decompositions and the partitioner",
    "inductor": "+ Inductor code generation",
}


def ladder_arms(stages: str | None) -> tuple[ArmSpec, ...]:
    """The arms of a ladder: eager first (the baseline), then each stage given, in order."""
    names = [s.strip() for s in (stages or "").split(",") if s.strip()] or list(DEFAULT_STAGES)
    if names[0] != "eager":
        names.insert(0, "eager")
    if len(set(names)) != len(names):
        raise ConfigError(f"--ladder lists a stage twice: {', '.join(names)}")
    for name in names:
        if not name.replace("_", "").replace(".", "").isalnum():
            raise ConfigError(f"--ladder: {name!r} is not a backend name")
    return tuple(ArmSpec(name) for name in names)


def minifier_command(stage: str, forward_only: bool) -> str:
    """The minifier that fits where the divergence starts. TORCHDYNAMO_REPRO_AFTER="aot" wraps
    only Inductor and checks the forward; anything else needs "dynamo"."""
    after = "aot" if stage == "inductor" and forward_only else "dynamo"
    return f'TORCHDYNAMO_REPRO_AFTER="{after}" TORCHDYNAMO_REPRO_LEVEL=4 python reproduce.py'


def _fell_back(row: Row) -> bool:
    """Whether a batch size ran eagerly instead of compiled (tcprof.profiler.session.rows)."""
    return row.fell_back or row.compile_status == "fell_back"


def _ran(row: Row) -> bool:
    return row.status == "ok" or row.median_ms is not None


def _accuracy(arm: Arm) -> tuple[str, bool]:
    """(worst status over the batch sizes that ran compiled, whether only the output
    diverged); "fell back" when every batch size that ran fell back to eager."""
    ran = [r for r in arm.rows if _ran(r)]
    if ran and all(_fell_back(r) for r in ran):
        return "fell back", False
    checks = [r.accuracy for r in arm.rows if r.accuracy is not None and not _fell_back(r)]
    failed = [c for c in checks if c.status == "fail"]
    if failed:
        # the worst tensor is kept raw (model/raw.py): its name, as saved
        names = {str((c.worst or {}).get("name")) for c in failed}
        return "fail", names <= {"output"}
    if any(c.status == "pass" for c in checks):
        return "pass", False
    return (checks[0].status if checks else None) or "not checked", False


def _median(arm: Arm | None, bs: int) -> float | None:
    row = next((r for r in arm.rows if r.batch_size == bs), None) if arm is not None else None
    return row.median_ms if row is not None else None


def _compile_s(row: Row) -> float | None:
    cost = row.compile
    return (cost.cold_s or cost.first_s) if cost is not None else None


def _stage(spec: ArmSpec, arm: Arm, previous: Arm | None) -> LadderStage:
    """What one stage adds over the one before, at each batch size, and its accuracy."""
    status, forward_only = _accuracy(arm) if spec.compiled else ("baseline", False)
    return LadderStage(
        stage=spec.backend,
        what=STAGE_TEXT.get(spec.backend, "eager PyTorch" if not spec.compiled else spec.backend),
        accuracy=status,
        forward_only=forward_only,
        error=(arm.error.message or None) if arm.error else None,
        fell_back=tuple(r.batch_size for r in arm.rows if _fell_back(r)) if spec.compiled else (),
        figures=tuple(
            StageFigures(
                batch_size=row.batch_size,
                median_ms=_median(arm, row.batch_size),
                added_ms=_delta(_median(arm, row.batch_size), _median(previous, row.batch_size)),
                compile_s=_compile_s(row),
                steady_peak_mb=row.memory.steady_peak_mb,
            )
            for row in {r.batch_size: r for r in arm.rows}.values()
        ),
    )


def _stage_json(stage: LadderStage) -> dict[str, Any]:
    """A stage as session.json saves it (`ladder.stages[]`, model/ladder.py reads it back)."""
    return {
        "stage": stage.stage,
        "what": stage.what,
        "accuracy": stage.accuracy,
        "forward_only": stage.forward_only,
        "error": stage.error,
        "fell_back": list(stage.fell_back),
        "per_batch_size": [
            {
                "batch_size": f.batch_size,
                "median_ms": f.median_ms,
                "added_ms": f.added_ms,
                "compile_s": f.compile_s,
                "steady_peak_mb": f.steady_peak_mb,
            }
            for f in stage.figures
        ],
    }


def ladder_summary(model: SessionModel) -> dict[str, Any] | None:
    """Per stage: what it adds over the stage before (step time, memory, compile time) and its
    accuracy; the first diverging stage and the minifier command for it. None if not a ladder.
    As session.json saves it (`ladder`): the session's writer reads the document it builds
    through the model."""
    if not model.config.get("ladder"):  # the run's options, kept raw (model/raw.py)
        return None
    arms = {a.index: a for a in model.arms}
    stages = []
    previous: Arm | None = None
    for index, spec in enumerate(arms_of(thaw(model.config))):
        arm = arms.get(index)
        if arm is None:
            continue
        stages.append(_stage(spec, arm, previous))
        previous = arm
    first = next((s for s in stages if s.accuracy == "fail"), None)
    compiled = [s for s in stages if s.accuracy != "baseline"]
    return {
        "stages": [_stage_json(s) for s in stages],
        # every compiled stage ran eagerly: nothing compiled was compared with eager
        "all_fell_back": bool(compiled) and all(s.accuracy == "fell back" for s in compiled),
        "first_divergence": first.stage if first else None,
        "minifier": minifier_command(str(first.stage), first.forward_only) if first else None,
    }


def _delta(value: float | None, before: float | None) -> float | None:
    return round(value - before, 4) if value is not None and before is not None else None
