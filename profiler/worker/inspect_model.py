"""Answer `inspect`: which models and factories a file defines, and what the chosen one looks like.

Runs in a worker so the GUI never imports the user's file (or torch) itself. The chosen model is
built as a run will build it (class or factory, then its inputs), so a model that cannot be
built is known before Run: the error's `stage` says where it failed (import, build, input) and
a build error carries its cause in one line and whether the constructor wants arguments.
"""

from __future__ import annotations

import time
from typing import Any

import torch

from tcprof.profiler.worker import errors, inputs, model_source
from tcprof.profiler.worker.channel import EventChannel

ERROR_KEYS = ("kind", "message", "file", "line", "traceback")


def inspect_source(channel: EventChannel, source: dict[str, Any]) -> None:
    path = source["path"]
    info: dict[str, Any] = {
        "path": path,
        "candidates": [],
        "chosen": None,
        "params": None,
        "input": None,
    }
    stage = "import"
    began = time.perf_counter()
    try:
        module = model_source.import_file(path)
        info["candidates"] = [c.to_dict() for c in model_source.list_candidates(module)]
        info["has_make_batch"] = callable(getattr(module, "make_batch", None))
        torch.manual_seed(0)
        stage = "build"
        model, how = model_source.build_model(module, source.get("model"), source.get("factory"))
        info["chosen"] = how
        info["params"] = model_source.count_parameters(model)
        stage = "input"
        plan = inputs.plan_inputs(model, module, source.get("input_shape"))
        info["input"] = plan.describe()
        if source.get("probe"):  # the window's estimate of a model with no earlier run
            from tcprof.profiler.worker.step_probe import probe_step

            load_s = round(time.perf_counter() - began, 4)  # what each of the run's workers repeats
            info["probe"] = {**probe_step(model, module, plan), "load_s": load_s}
    except inputs.InputError as exc:
        info["error"] = {"kind": "load", "message": str(exc), "stage": stage}
    except Exception as exc:
        error = {k: v for k, v in errors.load_error(exc, path).items() if k in ERROR_KEYS}
        error["stage"] = stage
        if isinstance(exc, model_source.ModelLoadError):
            error.update(cause=exc.cause, needs_arguments=exc.needs_arguments)
        info["error"] = error
    channel.emit("model_info", **info)
