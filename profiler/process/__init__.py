"""Worker processes: the handle the runner drives (`handle`, the test seam), a local worker
process and pre-started ones (`local`, `pool`), a model's one-shot inspection, and watching a
worker that stalls, ends unasked or floods its output.

Imports `config` and `protocol` only.
"""
