"""--apply-advice: verify the advice tcprof can apply itself by running the fixed arm.

After the run, every compiled arm whose advice carries an `apply` option (today `mark_dynamic=0`
for batch-size recompiles) gets a derived arm with that option. The derived arms run as a
follow-up with the same settings and their events join the same session, announced by an
`arms_added` event, so the session, its events.jsonl and the reports hold before and after side
by side. The follow-up runs after the main rounds, not interleaved with them: its timings carry
that note, while its recompile count is the verification that matters.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from pathlib import Path
from typing import Any

from tcprof.profiler.config import ArmSpec, RunConfig, arms_of, parse_arm
from tcprof.profiler.protocol.types import Listener
from tcprof.profiler.session.fold import SessionFold

FOLDER = "applied-advice"  # the follow-up's artefacts, inside the session folder


def derived_arms(session: dict[str, Any]) -> list[tuple[int, ArmSpec, str]]:
    """(index of the arm advised, derived spec, option applied) for every applicable advice."""
    specs = arms_of(session.get("config") or {})
    out = []
    for arm in session.get("arms") or []:
        index = arm.get("index")
        if not isinstance(index, int) or index >= len(specs):
            continue
        for item in arm.get("advice") or []:
            option = item.get("apply")
            if not option:
                continue
            spec = specs[index]
            applied = parse_arm(f"{spec.backend}:{option}")
            label = f"{spec.name} + {option}"
            out.append(
                (
                    index,
                    dataclasses.replace(spec, mark_dynamic=applied.mark_dynamic, label=label),
                    option,
                )
            )
    return out


def follow_up_config(config: RunConfig, arms: list[ArmSpec]) -> RunConfig:
    artifacts = str(Path(config.artifacts_dir) / FOLDER) if config.artifacts_dir else None
    return dataclasses.replace(
        config, arms=tuple(arms), control=None, artifacts_dir=artifacts, apply_advice=False
    )


def remapped(listener: Listener, offset: int) -> Listener:
    """The follow-up's events as events of the main session: arm indices after its arms; its
    own run_start and run_end are the main run's business, not a second run's."""

    def relay(event: dict[str, Any]) -> None:
        if event.get("type") in ("run_start", "run_end"):
            return
        if isinstance(event.get("arm"), int):
            event = {**event, "arm": event["arm"] + offset}
        listener(event)

    return relay


def apply_advice(
    session: SessionFold,
    config: RunConfig,
    listeners: list[Listener],
    make_runner: Callable[[RunConfig, list[Listener]], Any],
) -> list[dict[str, Any]]:
    """Run the derived arms into `session`; returns what was applied (empty: nothing to do)."""
    derived = derived_arms(session.to_dict(include_samples=False))
    if not derived:
        return []
    offset = len(session.arms)
    applied = [
        {"arm": offset + i, "from_arm": index, "apply": option}
        for i, (index, _, option) in enumerate(derived)
    ]
    announce = {
        "type": "arms_added",
        "arms": [spec.to_dict() for _, spec, _ in derived],
        "applied": applied,
    }
    for listener in (session.apply, *listeners):
        listener(announce)
    follow = follow_up_config(config, [spec for _, spec, _ in derived])
    relays = [remapped(listener, offset) for listener in (session.apply, *listeners)]
    make_runner(follow, relays).run()
    return applied


@dataclasses.dataclass(frozen=True)
class AppliedAdvice:
    """One applied advice (`apply`, the arm option tried): the arm advised (`before`) and its
    fixed twin (`after`), and how often each recompiled."""

    before: str
    after: str
    apply: str | None
    recompiles_before: int
    recompiles_after: int


def before_after(session: dict[str, Any]) -> list[AppliedAdvice]:
    """For each applied advice: recompiles of the arm advised and of its fixed twin (read from
    the session.json this module's follow-up wrote, for the terminal and the window)."""
    arms = {a.get("index"): a for a in session.get("arms") or []}
    out = []
    for item in (session.get("config") or {}).get("applied_advice") or []:
        before, after = arms.get(item.get("from_arm")), arms.get(item.get("arm"))
        if before is None or after is None:
            continue
        out.append(
            AppliedAdvice(
                before=str(before.get("name")),
                after=str(after.get("name")),
                apply=item.get("apply"),
                recompiles_before=len(before.get("recompiles") or []),
                recompiles_after=len(after.get("recompiles") or []),
            )
        )
    return out
