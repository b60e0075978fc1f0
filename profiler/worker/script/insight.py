"""What TorchDynamo did while the script ran, reported between blocks (never inside one):
compiles, graph breaks, recompile-limit fallbacks, CUDA graph skips and torch's log records,
from the arm's CompileWatcher, as events tagged with the phase and step."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import torch

from tcprof.profiler.worker.channel import EventChannel
from tcprof.profiler.worker.script.steps import StepTracker

BEFORE_TRAINING = "before_training"  # before the first step's training forward
IN_STEP = "step"  # in step `at_step`: its training forward, backward or optimizer step
IN_EVALUATION = "evaluation"  # between steps, under no_grad or with the model in eval mode


class Insight:
    def __init__(self, channel: EventChannel, watcher: Any, device_type: str = "cpu") -> None:
        self.ch = channel
        self.watcher = watcher  # None for the eager arm
        self.device_type = device_type
        self.compiles: list[dict[str, Any]] = []
        self.graph_breaks: list[dict[str, Any]] = []
        self.fallbacks: list[dict[str, Any]] = []

    def reset(self) -> None:
        """A new phase (batch size): its own counts."""
        self.compiles, self.graph_breaks, self.fallbacks = [], [], []

    def follow(self, tracker: StepTracker, model: Callable[[], Any]) -> None:
        """Tag each compile with when it began, from the script's steps as they stand."""
        if self.watcher is not None:
            self.watcher.context = lambda: when(tracker, model())

    def take(self, batch_size: int, step: int) -> list[dict[str, Any]]:
        """Report what happened since the last call; the compiles it reported."""
        w = self.watcher
        if w is None:
            return []
        compiles: list[dict[str, Any]] = w.take_compiles()
        for c in compiles:
            self.ch.emit("compile", batch_size=batch_size, step=step, **c)
        self.compiles.extend(compiles)
        for gb in w.take_graph_breaks():
            self.ch.emit("graph_break", batch_size=batch_size, step=step, **gb)
            self.graph_breaks.append(gb)
        for fb in w.take_fallbacks():
            self.ch.emit("fallback", batch_size=batch_size, step=step, **fb)
            self.fallbacks.append(fb)
        for skip in w.take_cudagraph_skips(self.device_type):
            self.ch.emit("cudagraph_skip", batch_size=batch_size, step=step, **skip)
        for log in w.take_artifact_logs():
            self.ch.emit("log", stream="torch", **log)
        return compiles

    def counts(self) -> dict[str, Any]:
        """bs_done's compile fields for the phase."""
        return {
            "graphs": sum(1 for c in self.compiles if c["kind"] == "first"),
            "recompiles": sum(1 for c in self.compiles if c["kind"] == "recompile"),
            "graph_breaks": len(self.graph_breaks),
            "fell_back": bool(self.fallbacks),
            "dynamo_compile_s": sum(seconds(c) for c in self.compiles),
        }


def when(tracker: StepTracker, model: Any) -> dict[str, Any]:
    """When a compile began: before training (no training forward yet: an evaluation, a
    warm-up forward, a compiled helper), in step N, or in an evaluation between steps."""
    index = tracker.index
    if index == 0 and tracker.started is None:
        return {"when": BEFORE_TRAINING, "at_step": 0}
    training = torch.is_grad_enabled() and (model is None or bool(getattr(model, "training", 1)))
    inside = tracker.started is not None or training
    return {"when": IN_STEP if inside else IN_EVALUATION, "at_step": index}


def seconds(compile_event: dict[str, Any]) -> float:
    """A compile's time: its frame's compile and its lazy backward compile."""
    return float(compile_event.get("seconds") or 0.0) + float(
        compile_event.get("backward_s") or 0.0
    )
