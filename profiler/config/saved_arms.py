"""The arms a saved session ran, read back from its config dict (session.json's `config`): their
specs with the controls and the arms --apply-advice added, the controls' twins, each arm's ranks."""

from __future__ import annotations

from typing import Any

from tcprof.profiler.config.arm import ArmSpec
from tcprof.profiler.config.choices import CONTROLS
from tcprof.profiler.config.controls import control_twins, run_arms


def arms_of(config: dict[str, Any]) -> tuple[ArmSpec, ...]:
    """The arms that ran, from a session's config dict (so the control arm is never stored
    in config['arms'] and re-running a session does not double it)."""
    arms = tuple(ArmSpec.from_dict(a) for a in config.get("arms", []) if isinstance(a, dict))
    added = tuple(  # arms --apply-advice added after the rounds, indexed after all others
        ArmSpec.from_dict(a) for a in config.get("added_arms") or [] if isinstance(a, dict)
    )
    control = config.get("control")
    return (*run_arms(arms, control if control in (True, *CONTROLS) else None), *added)


def controls_of(config: dict[str, Any]) -> dict[str, str]:
    """A session's A/A control arms (from its config dict) -> the arm each is a twin of."""
    arms = tuple(ArmSpec.from_dict(a) for a in config.get("arms", []) if isinstance(a, dict))
    control = config.get("control")
    return control_twins(arms, control if control in (True, *CONTROLS) else None)


def world_size_of(config: dict[str, Any], spec: ArmSpec) -> int:
    """An arm's ranks, from a session's config dict (an older session's arms have one)."""
    parallel = spec.parallel if spec.parallel is not None else config.get("parallel") or "none"
    nproc, nnodes = config.get("nproc"), config.get("nnodes")
    if parallel == "none" or not isinstance(nproc, int):
        return 1
    world = nproc * (nnodes if isinstance(nnodes, int) and nnodes > 1 else 1)
    return world if world > 1 else 1
