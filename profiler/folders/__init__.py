"""The session folder on disk: its file names and reading and writing them (`files`,
`file_paths`), `steps.csv`, replaying a session into events, atomic writes and the live event
log (`outputs`), a live run's lock, and recovering a run cut short.

Imports `session`, `analysis`, `config` and `protocol`.
"""
