"""`--log-to`'s specs: `tensorboard[:DIR]`, `mlflow[:URI]` and `wandb[:[ENTITY/]PROJECT]`, parsed
and checked before a run starts, so a typo or a missing extra is one line at once, not a surprise
after an hour's run.

A spec's kind is the text before the first colon; everything after it is the target (a folder,
any tracking URI MLflow accepts, `http://host:5000` included, or a W&B project)."""

from __future__ import annotations

import importlib.util
import os
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

TrackerKind = Literal["tensorboard", "mlflow", "wandb"]
KINDS: tuple[TrackerKind, ...] = ("tensorboard", "mlflow", "wandb")
# What each tracker's library is imported as, and the extra that installs it.
LIBRARY: dict[TrackerKind, str] = {
    "tensorboard": "tensorboard",
    "mlflow": "mlflow",
    "wandb": "wandb",
}
TRACKING_URI_ENV = "MLFLOW_TRACKING_URI"
WANDB_PROJECT_ENV = "WANDB_PROJECT"  # W&B's own; WANDB_ENTITY is read by W&B itself
SPEC_FORMS = "tensorboard[:DIR], mlflow[:URI] or wandb[:[ENTITY/]PROJECT]"
# What a W&B project's name cannot hold (W&B refuses it), the slash apart: ENTITY/PROJECT.
_NOT_IN_A_PROJECT = "\\#?%:"


@dataclass(frozen=True)
class TrackerSpec:
    """One tracker to log to. `target` is None for the default: the session's own
    `tensorboard/` folder, MLFLOW_TRACKING_URI (read when the spec is parsed), or W&B's own
    WANDB_PROJECT and WANDB_ENTITY (read when the session is logged)."""

    kind: TrackerKind
    target: str | None = None

    def __str__(self) -> str:
        return f"{self.kind}:{self.target}" if self.target else self.kind


def install_hint(kind: TrackerKind) -> str:
    return f"pip install tcprof[{kind}]"


def missing_library(kind: TrackerKind) -> str | None:
    """One line naming what to install when the tracker's library is not importable, else None.
    Found without importing it (MLflow takes seconds to import)."""
    try:
        found = importlib.util.find_spec(LIBRARY[kind]) is not None
    except (ImportError, ValueError):  # a broken install, or a module set to None
        found = False
    if found:
        return None
    return f"--log-to {kind} needs the {kind} package: {install_hint(kind)}"


def parse_spec(text: str) -> TrackerSpec:
    """A spec from its text; ValueError (one line) for an unknown kind, an empty target, a
    missing library, `mlflow` with no URI and no MLFLOW_TRACKING_URI, or a W&B project W&B
    would refuse."""
    kind_text, sep, target = text.strip().partition(":")
    kind_text = kind_text.strip().lower()
    if kind_text not in KINDS:
        raise ValueError(f"--log-to {text!r}: unknown tracker {kind_text!r}; give {SPEC_FORMS}")
    kind = next(k for k in KINDS if k == kind_text)
    target = target.strip()
    if sep and not target:
        what = {"tensorboard": "a folder", "mlflow": "a tracking URI", "wandb": "a project"}[kind]
        raise ValueError(f"--log-to {text!r}: {what} after {kind}:, or {kind} alone")
    if kind == "wandb" and target:
        check_wandb_project(text, target)
    missing = missing_library(kind)
    if missing:
        raise ValueError(missing)
    if kind == "mlflow" and not target:
        target = os.environ.get(TRACKING_URI_ENV, "").strip()
        if not target:
            raise ValueError(
                f"--log-to mlflow needs a tracking URI: mlflow:URI, or set {TRACKING_URI_ENV}"
            )
    return TrackerSpec(kind, target or None)


def check_wandb_project(text: str, target: str) -> None:
    """`PROJECT` or `ENTITY/PROJECT`, each a name W&B takes; ValueError (one line) if not."""
    parts = target.split("/")
    if len(parts) > 2 or not all(p.strip() for p in parts):
        raise ValueError(f"--log-to {text!r}: give wandb:PROJECT or wandb:ENTITY/PROJECT")
    bad = sorted({c for c in target if c in _NOT_IN_A_PROJECT})
    if bad:
        raise ValueError(f"--log-to {text!r}: a W&B project cannot hold {' '.join(bad)}")


def parse_specs(texts: Sequence[str]) -> tuple[TrackerSpec, ...]:
    """Every spec parsed (the first bad one raises), each tracker and target once."""
    if isinstance(texts, str):
        raise TypeError("specs is a sequence of spec strings, not one string")
    return tuple(dict.fromkeys(parse_spec(t) for t in texts))
