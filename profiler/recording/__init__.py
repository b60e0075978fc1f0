"""One recorded run behind one front door (`entry.Recording`): the checks before anything runs,
the folder chosen and locked, the live event log, the run, Ctrl+C and signals, the save, the
reports and the trackers, for `tcprof run` (cli/), `tcprof.run` (api/) and the window's Run
alike; and what those doors share of a run: its options, declared once (`options`,
`script_args`, `tracking`), and its progress on a terminal (`progress`).

Below the doors (`api`, `cli`), above what a run's end uses (`trackers`, `report`, `run` and
the floors below); prints nothing of its own but the terminal progress it is asked for.
"""
