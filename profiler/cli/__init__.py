"""The commands: `tcprof run/examples/inspect/report/compare`, `tcprof run`'s options, the
folder a run writes into, progress on the terminal and the terminal's summary.

The top floor of the engine: it may import every package below it.
"""
