"""The store a team shares: an MLflow tracking server (`--store URI`, TCPROF_STORE) that every
run is logged to as `--log-to mlflow` logs it, and that `tcprof history`, `compare`, `report`,
`tcprof.load` and the window's Sessions list read sessions back from (cached under TCPROF_HOME).

Imports `trackers` (the one MLflow logger), `store` (a session folder on disk) and `config`;
MLflow itself only when a session is sent or downloaded, or a store that is not an http(s) server
is read: an http(s) store is listed over MLflow's REST API (`rest.py`; docs/team-store.md)."""
