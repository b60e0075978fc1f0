"""The parts of session.json the model keeps raw, each with why: reachable as read-only JSON
(`SessionModel.data`, `config`, `Arm.data`, `Row.data`, `Accuracy.worst`) but with no typed
field of its own yet. tests/profiler/model/test_schema_reach.py holds every other key the schema
(protocol/session_schema.py) declares to a typed field; a key typed later leaves this list. A
key names its whole subtree ("config" covers "config.steps"); a key typed in part lists only
its untyped keys (`config` alone is kept whole beside its typed reading, `options`)."""

from __future__ import annotations

_RUN = (
    "the run's options as given (config/model.py's RunConfig reads them back); what the "
    "readers use of them is typed once, as SessionModel.options (model/options.py)"
)
_VIEW = "read by one view only (its section), not yet typed"
_NONE = "read by no view: the worker's own record, kept for a person reading session.json"
_ROUNDS = "the rounds' order, for the schedule's note (their waits: SessionModel.seeding)"
_RULE = "read by model/rules.py's rules (a copy of the row) into a typed field"

RAW: dict[str, str] = {
    "config": _RUN,
    "series.version": "the series key's own version, compared by model/series.py",
    "rounds[].replicate": _ROUNDS,
    "rounds[].cache": _ROUNDS,
    "rounds[].order": _ROUNDS,
    "rounds[].seed": _ROUNDS,
    "schedule.design": _VIEW,
    "schedule.period": _VIEW,
    "schedule.rounds": _VIEW,
    "schedule.balanced": _VIEW,
    "schedule.positions": _VIEW,
    "comparisons.hold": _VIEW,
    "samples": "every step's time: arrays for the plots and steps.csv, not records",
    "logs": "the workers' output, shown as text",
    "arms[].model.cache_dir": _NONE,
    "arms[].model.threads": _NONE,
    "arms[].model.candidates": _NONE,
    "arms[].model.cpu_check.isas": _NONE,
    "arms[].model.cpu_check.seeded": _NONE,
    "arms[].model.cpu_check.other_files": _NONE,
    "arms[].exit": "how a worker process ended, shown as given",
    "arms[].caches": _VIEW,
    "arms[].cache_events": _VIEW,
    "arms[].results[].verdict": _RULE + " (Row.verdict, Speedup.interval)",
    "arms[].results[].compile_cache": _VIEW,
    "arms[].results[].compile_rounds": _VIEW,
    "arms[].results[].compile_check.residual_s": _NONE,
    "arms[].results[].accuracy.worst": "the worst tensor (Accuracy.worst, a mapping)",
    "arms[].results[].speedup_ci_simultaneous": _RULE + " (Speedup.interval)",
    "arms[].results[].interval_level": _RULE + " (Speedup.level)",
}
