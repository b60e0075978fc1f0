"""A saved session sent where a team already looks: TensorBoard, MLflow and W&B runs.

`log_session(folder, specs)` reads the session folder (session.json, steps.csv's rows, the
reports) and logs it to each tracker a spec names (`tensorboard[:DIR]`, `mlflow[:URI]`,
`wandb[:[ENTITY/]PROJECT]`, parsed up front by `parse_specs`). Used by `tcprof run --log-to`, `tcprof log-to` and the
window's Export. The tracker libraries are extras, imported only when a session is logged.

Imports `report`, `store`, `analysis` and below; only `cli` sits above it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from tcprof.profiler.trackers.specs import TrackerSpec, missing_library, parse_spec, parse_specs

if TYPE_CHECKING:
    from tcprof.profiler.trackers.log import log_session

__all__ = ["TrackerSpec", "log_session", "missing_library", "parse_spec", "parse_specs"]


def __getattr__(name: str) -> Any:
    """`log_session` on first use: parsing a spec (`tcprof run --log-to`, before the run)
    need not read how a session is logged (0.1 s of `tcprof run`'s start)."""
    if name == "log_session":
        from tcprof.profiler.trackers.log import log_session

        return log_session
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
