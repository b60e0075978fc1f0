"""Torch Compile Profiler: eager against `torch.compile` on your own training, with the reasons
beside the numbers.

The one name an installed tcprof adds to an environment. Its floors, top to bottom:

- `tcprof.app`: the desktop window (PySide6 + pyqtgraph); never imports torch.
- `tcprof.profiler`: the engine (runs, sessions, statistics, reports, the CLI, the Python API);
  never imports Qt.
- `tcprof.profiler.worker`: the only code that imports torch, inside one process per arm.
- `tcprof.resources`: example models and report assets, read as files.

In the repository these are the top-level folders `app/`, `profiler/` and `resources/`; this
folder links them under one name, and the wheel maps them into it (`pyproject.toml`).

As a library (docs/api.md): `tcprof.run(...)` returns a `tcprof.Session`; `tcprof.load(path)`
opens a saved one; `tcprof.compare(a, b)` compares two; `%load_ext tcprof` adds the `%tcprof`
magic. They come from `tcprof.profiler.api`, imported on first use, so `import tcprof` itself
loads neither torch nor Qt nor the engine (bench/api_import.py measures it).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

__version__ = "0.1.0"

# The names tcprof.profiler.api exports, as tcprof's own (loaded on first use).
API = (
    "run",
    "load",
    "compare",
    "Session",
    "Arm",
    "Row",
    "Speedup",
    "Interval",
    "CompileCost",
    "Memory",
    "Accuracy",
    "Problem",
    "GraphBreak",
    "Recompile",
    "Provenance",
    "Series",
    "Comparison",
    "ComparedRow",
    "Progress",
    "TcprofWarning",
    "CANNOT_SHIP",
    "load_ipython_extension",
)
__all__ = ["__version__", *API]

if TYPE_CHECKING:
    from tcprof.profiler.api import (
        CANNOT_SHIP as CANNOT_SHIP,
    )
    from tcprof.profiler.api import (
        Accuracy as Accuracy,
    )
    from tcprof.profiler.api import (
        Arm as Arm,
    )
    from tcprof.profiler.api import (
        ComparedRow as ComparedRow,
    )
    from tcprof.profiler.api import (
        Comparison as Comparison,
    )
    from tcprof.profiler.api import (
        CompileCost as CompileCost,
    )
    from tcprof.profiler.api import (
        GraphBreak as GraphBreak,
    )
    from tcprof.profiler.api import (
        Interval as Interval,
    )
    from tcprof.profiler.api import (
        Memory as Memory,
    )
    from tcprof.profiler.api import (
        Problem as Problem,
    )
    from tcprof.profiler.api import (
        Progress as Progress,
    )
    from tcprof.profiler.api import (
        Recompile as Recompile,
    )
    from tcprof.profiler.api import (
        Row as Row,
    )
    from tcprof.profiler.api import (
        Session as Session,
    )
    from tcprof.profiler.api import (
        Speedup as Speedup,
    )
    from tcprof.profiler.api import (
        TcprofWarning as TcprofWarning,
    )
    from tcprof.profiler.api import (
        compare as compare,
    )
    from tcprof.profiler.api import (
        load as load,
    )
    from tcprof.profiler.api import (
        load_ipython_extension as load_ipython_extension,
    )
    from tcprof.profiler.api import (
        run as run,
    )


def __getattr__(name: str) -> Any:
    """tcprof.run and the rest of the API, imported when first asked for."""
    if name not in API:
        raise AttributeError(f"module 'tcprof' has no attribute {name!r}")
    from tcprof.profiler import api

    value = getattr(api, name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *API})
