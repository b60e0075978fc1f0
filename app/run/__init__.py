"""One run at a time: the controller and its QThread (`run_controller`, `profiler_thread`, which
records the run through the engine's `RecordedRun`), the estimate next to Run and the status
bar's run line.

Imports `results`, `plots` and `common`.
"""
