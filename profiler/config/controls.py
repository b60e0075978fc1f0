"""The A/A controls a run adds to its arms: identical twins of eager or of the first compiled
arm, whose truth is a speedup of 1.00 (`--control`)."""

from __future__ import annotations

import dataclasses

from tcprof.profiler.config.arm import ArmSpec
from tcprof.profiler.config.choices import CONTROL_LABEL, CONTROL_SUFFIX, CONTROLS, ConfigError


def normalize_control(value: object) -> str | None:
    """`control` as it is stored now: True (a session before schema 3) is the eager twin."""
    if value is True:
        return "eager"
    if value is False or value is None or value == "":
        return None
    if value not in CONTROLS:
        raise ConfigError(f"--control must be one of {', '.join(CONTROLS)}, not {value!r}")
    return str(value)


def control_arms(arms: tuple[ArmSpec, ...], control: object) -> tuple[ArmSpec, ...]:
    """The A/A twins `control` adds: eager's (CONTROL_LABEL), and the first compiled arm's
    (its name + CONTROL_SUFFIX), which carries what only compiled processes carry."""
    kind = normalize_control(control)
    out: list[ArmSpec] = []
    if kind in ("eager", "both"):
        out.append(ArmSpec("eager", label=CONTROL_LABEL))
    first = next((a for a in arms if a.compiled), None)
    if kind in ("compiled", "both") and first is not None:
        out.append(dataclasses.replace(first, label=first.name + CONTROL_SUFFIX))
    return tuple(out)


def control_twins(arms: tuple[ArmSpec, ...], control: object) -> dict[str, str]:
    """Each control arm's name -> the name of the arm it is an identical twin of."""
    first = next((a for a in arms if a.compiled), None)
    plain = next((a.name for a in arms if not a.compiled), "eager")
    out = {}
    for spec in control_arms(arms, control):
        out[spec.name] = plain if spec.label == CONTROL_LABEL else (first.name if first else "")
    return out


def run_arms(arms: tuple[ArmSpec, ...], control: object) -> tuple[ArmSpec, ...]:
    return (*arms, *control_arms(arms, control))
