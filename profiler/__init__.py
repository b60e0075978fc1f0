"""The engine: what to run, running it, what came out, and how it reads. No Qt, no torch
(`worker/` alone imports torch, in its own process).

Its packages are floors; each imports only the floors below it (import-linter's contracts in
`pyproject.toml` keep it so):

- `api | cli`: side by side (neither imports the other): tcprof as a Python library, and the
  commands (`tcprof run/report/compare/log-to/...`) with their terminal output.
- `recording`: one recorded run behind one front door (its options, folder, checks, run,
  signals, save, reports and trackers), for the CLI, the API and the window alike.
- `team_store`: the MLflow server a team shares (`--store`): runs sent there, sessions read back.
- `trackers`: a saved session logged to TensorBoard, MLflow and W&B (`--log-to`).
- `report`: what a session reads as: tables, verdict wording, report.html / .md, comparisons.
- `run`: the schedule (rounds, blocks, the accuracy pass), cache plans, the ladder and advice
  runs, estimates and progress.
- `remote`: an arm on another host over ssh.
- `distributed`: an arm under torchrun, its ranks merged, several nodes.
- `process`: the worker handle seam, local worker processes, the pool, stall and end watching.
- `folders`: the home folder and the session folder on disk: files, paths, replay, `steps.csv`, locks, recovery.
- `session`: events folded into a session, its rows, its `session.json` form.
- `analysis`: statistics, verdicts, advice, regional compile, stragglers: pure functions, over
  numbers and the model's typed records.
- `model`: a saved session as typed, read-only records (`SessionModel.from_json`), shared by every
  reader; below `analysis` so analysis may read it: the row rules it applies when built and the
  verdict sentences over its records are its own.
- `config`: the run's choices and its model, parsed and checked.
- `protocol`: the events a worker sends, their schemas, bounded JSON, events as text.

`worker` (torch) imports only `config` and `protocol`.
"""
