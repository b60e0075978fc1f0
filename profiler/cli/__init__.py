"""The commands: `tcprof run/examples/inspect/report/compare/log-to`, and what the terminal
shows of them (the summary, warnings, exit codes). A run itself, its options and its folder are
the engine's one recorded run (profiler/recording/), shared with the Python API.

A top floor of the engine, beside `api` (neither imports the other): it may import every
package below it.
"""
