"""The setup panel: model, arms, batch sizes, loop, measurement, distributed, host and debug
options, each a sub-editor with `options()` / `set_options()`; the model file watched, and
the question before a session's model runs.

Imports `run`, `plots`, `results` and `common`.
"""
