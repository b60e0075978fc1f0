"""tcprof as a Python library: `run` a profile through the engine's one recorded run, `load` a
saved session, `compare` two, each result a typed, read-only value (`Session`, `Comparison`).
`import tcprof` re-exports these names (docs/api.md documents each).

A top floor of the engine, beside `cli` (neither imports the other): it may import every floor
below it (the run's options and recorded run in `recording`, the reports), and nothing below
imports it. No Qt, no torch: a
model given as a Python object is pickled here and built in the workers.
"""

from tcprof.profiler.api.comparison import ComparedRow, Comparison, compare
from tcprof.profiler.api.magic import load_ipython_extension
from tcprof.profiler.api.progress import Progress, TcprofWarning
from tcprof.profiler.api.running import run
from tcprof.profiler.api.session import Session, load
from tcprof.profiler.api.shipping import CANNOT_SHIP
from tcprof.profiler.model.arm import Arm, GraphBreak, Recompile
from tcprof.profiler.model.compiles import CompileCost
from tcprof.profiler.model.context import Provenance, Series
from tcprof.profiler.model.figures import Interval, Problem
from tcprof.profiler.model.row import Accuracy, Memory, Row, Speedup

__all__ = [
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
]
