"""The store a team shares: an MLflow tracking server (`--store URI`, TCPROF_STORE) that every
run is logged to as `--log-to mlflow` logs it, and that `tcprof history`, `compare`, `report`,
`tcprof.load` and the window's Sessions list read sessions back from (cached under TCPROF_HOME).

Imports `trackers` (the one MLflow logger), `store` (a session folder on disk) and `config`;
MLflow itself only in `reading.py` and when a session is sent (docs/team-store.md)."""
