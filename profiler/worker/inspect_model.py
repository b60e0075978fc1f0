"""Answer `inspect`: which models and factories a file defines, and what the chosen one looks like.

Runs in a worker so the GUI never imports the user's file (or torch) itself."""

from __future__ import annotations

from typing import Any

import torch

from profiler.worker import errors, inputs, model_source
from profiler.worker.channel import EventChannel


def inspect_source(channel: EventChannel, source: dict[str, Any]) -> None:
    path = source["path"]
    info: dict[str, Any] = {
        "path": path,
        "candidates": [],
        "chosen": None,
        "params": None,
        "input": None,
    }
    try:
        module = model_source.import_file(path)
        info["candidates"] = [c.to_dict() for c in model_source.list_candidates(module)]
        info["has_make_batch"] = callable(getattr(module, "make_batch", None))
        torch.manual_seed(0)
        model, how = model_source.build_model(module, source.get("model"), source.get("factory"))
        info["chosen"] = how
        info["params"] = model_source.count_parameters(model)
        info["input"] = inputs.plan_inputs(model, module, source.get("input_shape")).describe()
    except model_source.ModelLoadError as exc:
        info["error"] = {"kind": exc.kind, "message": str(exc), "file": exc.file, "line": exc.line}
    except inputs.InputError as exc:
        info["error"] = {"kind": "load", "message": str(exc)}
    except Exception as exc:
        err = errors.describe(exc, "load", False, path)
        info["error"] = {k: err[k] for k in ("kind", "message", "file", "line", "traceback")}
    channel.emit("model_info", **info)
