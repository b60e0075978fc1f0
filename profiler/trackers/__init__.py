"""A saved session sent where a team already looks: TensorBoard runs and MLflow runs.

`log_session(folder, specs)` reads the session folder (session.json, steps.csv's rows, the
reports) and logs it to each tracker a spec names (`tensorboard[:DIR]`, `mlflow[:URI]`,
parsed up front by `parse_specs`). Used by `tcprof run --log-to`, `tcprof log-to` and the
window's Export. The tracker libraries are extras, imported only when a session is logged.

Imports `report`, `store`, `analysis` and below; only `cli` sits above it.
"""

from tcprof.profiler.trackers.log import log_session
from tcprof.profiler.trackers.specs import TrackerSpec, missing_library, parse_spec, parse_specs

__all__ = ["TrackerSpec", "log_session", "missing_library", "parse_spec", "parse_specs"]
