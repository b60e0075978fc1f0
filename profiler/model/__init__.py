"""A saved session as typed, read-only records, declared once (issue 40, item 3): `SessionModel`
(session.py) with its arms (arm.py) and rows (row.py), built from session.json's dict by one
reader, `SessionModel.from_json`; json_values.py reads a JSON value as a typed one.

The floor sits below `analysis` and above `config`: the few rules a saved row is read by (which
interval of the speedup is shown, settled, a row's outcome, memory against the baseline:
rules.py) and the verdict sentences and notes over the typed records (verdict.py, notes.py) are
the model's own, applied once when it is built, so analysis's readers may take the typed records.
The series key (series.py) is how a saved session is grouped into a history. Every floor above
(analysis, session, folders, run, report, trackers, recording, cli, api) and the window may read
it. No Qt, no torch.
"""
