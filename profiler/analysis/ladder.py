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


def _fell_back(row: dict[str, Any]) -> bool:
    """Whether a batch size ran eagerly instead of compiled (tcprof.profiler.session.rows)."""
    return bool(row.get("fell_back")) or row.get("compile_status") == "fell_back"


def _ran(row: dict[str, Any]) -> bool:
    return row.get("status") == "ok" or row.get("median_ms") is not None


def _accuracy(arm: dict[str, Any]) -> tuple[str, bool]:
    """(worst status over the batch sizes that ran compiled, whether only the output
    diverged); "fell back" when every batch size that ran fell back to eager."""
    results = arm.get("results") or []
    ran = [r for r in results if _ran(r)]
    if ran and all(_fell_back(r) for r in ran):
        return "fell back", False
    checks = [
        r.get("accuracy")
        for r in results
        if isinstance(r.get("accuracy"), dict) and not _fell_back(r)
    ]
    failed = [c for c in checks if c.get("status") == "fail"]
    if failed:
        names = {str((c.get("worst") or {}).get("name")) for c in failed}
        return "fail", names <= {"output"}
    if any(c.get("status") == "pass" for c in checks):
        return "pass", False
    return (checks[0].get("status") if checks else None) or "not checked", False


def _median(arm: dict[str, Any], bs: Any) -> float | None:
    row = next((r for r in arm.get("results") or [] if r.get("batch_size") == bs), None)
    value = (row or {}).get("median_ms")
    return value if isinstance(value, (int, float)) else None


def ladder_summary(session: dict[str, Any]) -> dict[str, Any] | None:
    """Per stage: what it adds over the stage before (step time, memory, compile time) and its
    accuracy; the first diverging stage and the minifier command for it. None if not a ladder."""
    config = session.get("config") or {}
    if not config.get("ladder"):
        return None
    specs = arms_of(config)
    arms = {a.get("index"): a for a in session.get("arms") or []}
    stages = []
    previous: dict[str, Any] | None = None
    for index, spec in enumerate(specs):
        arm = arms.get(index)
        if arm is None:
            continue
        status, forward_only = _accuracy(arm) if spec.compiled else ("baseline", False)
        rows = {r.get("batch_size"): r for r in arm.get("results") or []}
        stage: dict[str, Any] = {
            "stage": spec.backend,
            "what": STAGE_TEXT.get(
                spec.backend, "eager PyTorch" if not spec.compiled else spec.backend
            ),
            "accuracy": status,
            "forward_only": forward_only,
            "error": (arm.get("error") or {}).get("message"),
            "fell_back": [r.get("batch_size") for r in arm.get("results") or [] if _fell_back(r)]
            if spec.compiled
            else [],
            "per_batch_size": [
                {
                    "batch_size": bs,
                    "median_ms": _median(arm, bs),
                    "added_ms": _delta(
                        _median(arm, bs), _median(previous, bs) if previous is not None else None
                    ),
                    "compile_s": row.get("compile_cold_s") or row.get("compile_s"),
                    "steady_peak_mb": row.get("steady_peak_mb"),
                }
                for bs, row in rows.items()
            ],
        }
        stages.append(stage)
        previous = arm
    first = next((s for s in stages if s["accuracy"] == "fail"), None)
    compiled = [s for s in stages if s["accuracy"] != "baseline"]
    return {
        "stages": stages,
        # every compiled stage ran eagerly: nothing compiled was compared with eager
        "all_fell_back": bool(compiled) and all(s["accuracy"] == "fell back" for s in compiled),
        "first_divergence": first["stage"] if first else None,
        "minifier": minifier_command(first["stage"], first["forward_only"]) if first else None,
    }


def _delta(value: float | None, before: float | None) -> float | None:
    return round(value - before, 4) if value is not None and before is not None else None
