"""`--log-to`'s specs: `tensorboard[:DIR]` and `mlflow[:URI]`, parsed and checked before a run
starts, so a typo or a missing extra is one line at once, not a surprise after an hour's run.

A spec's kind is the text before the first colon; everything after it is the target (a folder,
or any tracking URI MLflow accepts, `http://host:5000` included)."""

from __future__ import annotations

import importlib.util
import os
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

TrackerKind = Literal["tensorboard", "mlflow"]
KINDS: tuple[TrackerKind, ...] = ("tensorboard", "mlflow")
# What each tracker's library is imported as, and the extra that installs it.
LIBRARY: dict[TrackerKind, str] = {"tensorboard": "tensorboard", "mlflow": "mlflow"}
TRACKING_URI_ENV = "MLFLOW_TRACKING_URI"
SPEC_FORMS = "tensorboard[:DIR] or mlflow[:URI]"


@dataclass(frozen=True)
class TrackerSpec:
    """One tracker to log to. `target` is None for the default: the session's own
    `tensorboard/` folder, or MLFLOW_TRACKING_URI (read when the spec is parsed)."""

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
    missing library, or `mlflow` with no URI and no MLFLOW_TRACKING_URI."""
    kind_text, sep, target = text.strip().partition(":")
    kind_text = kind_text.strip().lower()
    if kind_text not in KINDS:
        raise ValueError(f"--log-to {text!r}: unknown tracker {kind_text!r}; give {SPEC_FORMS}")
    kind: TrackerKind = "tensorboard" if kind_text == "tensorboard" else "mlflow"
    target = target.strip()
    if sep and not target:
        what = "a folder" if kind == "tensorboard" else "a tracking URI"
        raise ValueError(f"--log-to {text!r}: {what} after {kind}:, or {kind} alone")
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


def parse_specs(texts: Sequence[str]) -> tuple[TrackerSpec, ...]:
    """Every spec parsed (the first bad one raises), each tracker and target once."""
    if isinstance(texts, str):
        raise TypeError("specs is a sequence of spec strings, not one string")
    return tuple(dict.fromkeys(parse_spec(t) for t in texts))
