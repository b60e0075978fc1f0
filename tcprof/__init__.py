"""Torch Compile Profiler: eager against `torch.compile` on your own training, with the reasons
beside the numbers.

The one name an installed tcprof adds to an environment. Its floors, top to bottom:

- `tcprof.app`: the desktop window (PySide6 + pyqtgraph); never imports torch.
- `tcprof.profiler`: the engine (runs, sessions, statistics, reports, the CLI); never imports Qt.
- `tcprof.profiler.worker`: the only code that imports torch, inside one process per arm.
- `tcprof.resources`: example models and report assets, read as files.

In the repository these are the top-level folders `app/`, `profiler/` and `resources/`; this
folder links them under one name, and the wheel maps them into it (`pyproject.toml`).
"""

__version__ = "0.1.0"
