"""An inspection's answer in the window's words (why a model cannot be built, an error's line,
a file's label), and the answers kept per file version, so a file is inspected once until it
changes. Apart from the Model box's widget (model_picker.py), which shows them."""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path

from tcprof.app.common.field_names import in_app_terms
from tcprof.profiler.config import ModelSource
from tcprof.profiler.config.examples import example_for
from tcprof.profiler.process.inspected import Inspection, InspectionError

NEEDS_ARGUMENTS_FIX = (
    "give a factory in the Factory field, or default values for the constructor's arguments"
)


def build_problem(error: InspectionError | Mapping[str, object] | None) -> str | None:
    """Why an inspected model cannot be built or given inputs, in the window's terms; None if
    it can be (or the error is not one a run would meet building it). `error`: the answer's,
    typed, or as the worker sent it."""
    if not isinstance(error, InspectionError):
        error = InspectionError.of(error)
    if error is None or error.stage not in ("build", "input"):
        return None
    if error.stage == "input":
        return f"the model's inputs cannot be made: {in_app_terms(str(error.message))}"
    file, line = error.file, error.line
    where = f" ({Path(file).name}, line {line})" if file and line else ""
    if error.needs_arguments:
        return f"{error.cause or error.message}{where}: {NEEDS_ARGUMENTS_FIX}"
    return f"the model cannot be built: {in_app_terms(str(error.message))}{where}"


def error_line(error: InspectionError) -> str:
    """'syntax error in model.py, line 3: …' : the error's kind, then its message in the
    window's terms, the kind said once (the worker's message may already start with it)."""
    kind = error.kind or ""
    message = in_app_terms(error.message or "").strip()
    if kind and message.lower().startswith(f"{kind.lower()} error"):
        return message
    return f"{kind} error: {message}" if kind else message


def path_label(path: str) -> str:
    """A built-in example by its title, any other file by its name."""
    example = example_for(path)
    return f"{example.title} ({Path(path).name})" if example else Path(path).name


_CACHE: dict[tuple[object, ...], Inspection] = {}


def _cache_key(source: ModelSource) -> tuple[object, ...]:
    try:
        mtime = os.stat(source.path).st_mtime_ns
    except OSError:
        mtime = None
    return (source.path, mtime, source.model, source.factory, source.input_shape)


def cached(source: ModelSource) -> Inspection | None:
    """The answer kept for this version of the file and this choice in it, if any."""
    return _CACHE.get(_cache_key(source))


def keep(source: ModelSource, inspection: Inspection) -> None:
    """Keep an answer that will not change until the file does: the model's, or a syntax or
    load error (a build may depend on more than the file)."""
    error = inspection.error
    if error is None or error.kind in ("syntax", "load"):
        _CACHE[_cache_key(source)] = inspection
