"""Pure functions over numbers and records: statistics and intervals (`stats`), the verdict
rules, recompile advice, regional against whole-model compile, the backend ladder's reading,
stragglers and per-rank compile figures.

Imports `model` (a saved session's typed records, and the row rules it applies), `config` and
`protocol` only.
"""
